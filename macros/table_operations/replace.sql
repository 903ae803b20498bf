{#
    Flink's Table.replace: in `columns`, each value equal to a key of `replacement` becomes that key's value
    (CASE WHEN col = old THEN new ... ELSE col END); other columns pass through. Keys and values must fit the
    column's type; a value may be none (replace with NULL). NULLs are never equal to a key (fill them with fillna).
#}
{% macro replace(relation, replacement, columns) %}
    {{ return(adapter.dispatch('replace', 'window_tvf')(relation, replacement, columns)) }}
{% endmacro %}

{% macro default__replace(relation, replacement, columns) %}
    {%- if replacement is not mapping or (replacement | length) == 0 -%}
        {{ window_tvf._argument_error('replace', 'replacement', replacement, "expected a non-empty {old value: new value} dict, e.g. {1: 3, 2: 4}") }}
    {%- endif -%}
    {%- set all_columns = window_tvf._required_columns(relation, 'replace') -%}
    {%- set targets = window_tvf._existing_columns(columns, all_columns, 'replace', 'columns') -%}
    {%- if not targets -%}
        {{ window_tvf._argument_error('replace', 'columns', columns, "expected the column name(s) to replace values in") }}
    {%- endif -%}
    {%- for name in targets if execute -%}
        {%- for old, new in replacement.items() -%}
            {%- for value in [old, new] if not window_tvf._value_fits(value, all_columns[name]) or (value is none and value is sameas old) -%}
                {{ window_tvf._argument_error('replace', 'replacement', {old: new},
                    "value " ~ (value | tojson) ~ " does not fit column " ~ name ~ " of type " ~ all_columns[name]
                    ~ (" (a NULL key never matches: use fillna)" if value is none else "")) }}
            {%- endfor -%}
        {%- endfor -%}
    {%- endfor -%}
    {%- if not execute -%}{{ return('select * from ' ~ relation) }}{%- endif -%}
    {%- set expressions = {} -%}
    {%- for name in targets -%}
        {%- set cases = [] -%}
        {%- for old, new in replacement.items() -%}
            {%- do cases.append('when source_rows.`' ~ name ~ '` = ' ~ window_tvf._sql_literal(old)
                ~ ' then cast(' ~ window_tvf._sql_literal(new) ~ ' as ' ~ all_columns[name] ~ ')') -%}
        {%- endfor -%}
        {%- do expressions.update({name: 'case ' ~ cases | join(' ') ~ ' else source_rows.`' ~ name ~ '` end'}) -%}
    {%- endfor %}
select
    {{ window_tvf._project_columns(all_columns, expressions) }}
from {{ relation }} as source_rows
{%- endmacro %}
