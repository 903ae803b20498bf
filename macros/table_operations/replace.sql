{#
    Flink's Table.replace: in `columns`, each value equal to a key of `replacement` becomes that key's value
    (CASE WHEN col = old THEN new ... ELSE col END); other columns pass through. Keys and values must fit the
    column's type exactly (the rule of fillna, literals.sql: _value_fits), or the call is a compile error; a value
    may be none (replace with NULL). NULLs are never equal to a key (fill them with fillna).
#}
{% macro replace(relation, replacement, columns) %}
    {{ return(adapter.dispatch('replace', 'window_tvf')(relation, replacement, columns)) }}
{% endmacro %}

{% macro default__replace(relation, replacement, columns) %}
    {%- if replacement is not mapping or (replacement | length) == 0 -%}
        {{ window_tvf._argument_error('replace', 'replacement', replacement, "expected a non-empty {old value: new value} dict, e.g. {1: 3, 2: 4}") }}
    {%- endif -%}
    {%- set relation = window_tvf._relation(relation, 'replace') -%}
    {%- set all_columns = window_tvf._required_columns(relation, 'replace') -%}
    {%- set targets = window_tvf._existing_columns(columns, all_columns, relation, 'replace', 'columns') -%}
    {%- if not targets -%}
        {{ window_tvf._argument_error('replace', 'columns', columns, "expected the column name(s) to replace values in") }}
    {%- endif -%}
    {%- if not execute -%}{{ return('select * from ' ~ relation) }}{%- endif -%}
    {%- set expressions = {} -%}
    {%- for name in targets -%}
        {%- set cases = [] -%}
        {%- for old, new in replacement.items() -%}
            {%- do cases.append('when source_rows.`' ~ name ~ '` = ' ~ window_tvf._replacement_literal(old, new, old, name, all_columns[name])
                ~ ' then ' ~ window_tvf._replacement_literal(old, new, new, name, all_columns[name])) -%}
        {%- endfor -%}
        {%- do expressions.update({name: 'case ' ~ cases | join(' ') ~ ' else source_rows.`' ~ name ~ '` end'}) -%}
    {%- endfor %}
select
    {{ window_tvf._project_columns(all_columns, expressions) }}
from {{ relation }} as source_rows
{%- endmacro %}

{#- `value`, the key `old` or the value `new` of one replacement, as a literal of column `name`; an error if it does not fit. -#}
{% macro _replacement_literal(old, new, value, name, data_type) %}
    {%- set literal = window_tvf._typed_literal(value, data_type) -%}
    {%- if literal is none or (value is none and value is sameas old) -%}
        {%- set shown = {} -%}
        {%- do shown.update({(old | string if old.isoformat is defined else old): (new | string if new.isoformat is defined else new)}) -%}
        {{ window_tvf._argument_error('replace', 'replacement', shown,
            "value " ~ (value | string if value.isoformat is defined else value | tojson) ~ " does not fit column " ~ name ~ " of type "
            ~ data_type ~ (" (a NULL key never matches: use fillna)" if value is none else " (" ~ data_type ~ " holds "
            ~ window_tvf._type_holds(data_type) ~ ")")) }}
    {%- endif -%}
    {{ return(literal) }}
{% endmacro %}
