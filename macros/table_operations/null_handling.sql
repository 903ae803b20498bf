{#
    Flink's null data handling (fillna, dropna) for tables of any width: the columns and their types are read from
    the relation, so a 300-column table needs no column list.
#}

{#
    fillna(relation, value, columns=none): NULLs in `columns` become `value`. Without columns, every column whose
    type fits the value is filled (a whole number fits numeric columns, a fraction fits float/double/decimal, a
    string fits string columns, a boolean fits boolean columns); a named column the value does not fit is an error.
    fillna(relation, {column: value, ...}) fills each named column with its own value.
#}
{% macro fillna(relation, value, columns=none) %}
    {{ return(adapter.dispatch('fillna', 'window_tvf')(relation, value, columns)) }}
{% endmacro %}

{% macro default__fillna(relation, value, columns=none) %}
    {%- set all_columns = window_tvf._required_columns(relation, 'fillna') -%}
    {%- set fills = {} -%}
    {%- if value is mapping -%}
        {%- if columns is not none -%}
            {{ window_tvf._argument_error('fillna', 'columns', columns, "leave it out when value is a {column: value} dict") }}
        {%- endif -%}
        {%- for name, fill in value.items() -%}
            {%- do fills.update({window_tvf._existing_columns([name], all_columns, 'fillna', 'value')[0]: fill}) -%}
        {%- endfor -%}
    {%- elif columns is not none -%}
        {%- for name in window_tvf._existing_columns(columns, all_columns, 'fillna', 'columns') -%}
            {%- do fills.update({name: value}) -%}
        {%- endfor -%}
    {%- else -%}
        {%- for name, data_type in all_columns.items() if window_tvf._value_fits(value, data_type) -%}
            {%- do fills.update({name: value}) -%}
        {%- endfor -%}
    {%- endif -%}
    {%- for name, fill in fills.items() -%}
        {%- if fill is none or (execute and not window_tvf._value_fits(fill, all_columns[name])) -%}
            {{ window_tvf._argument_error('fillna', 'value', fill,
                "it does not fit column " ~ name ~ " of type " ~ all_columns.get(name) ~ " (numbers fit numeric columns, "
                ~ "fractions only float/double/decimal, strings string columns, booleans boolean columns)") }}
        {%- endif -%}
    {%- endfor -%}
    {%- if not execute -%}{{ return('select * from ' ~ relation) }}{%- endif -%}
    {%- set expressions = {} -%}
    {%- for name, fill in fills.items() -%}
        {%- do expressions.update({name: 'coalesce(source_rows.`' ~ name ~ '`, cast(' ~ window_tvf._sql_literal(fill) ~ ' as ' ~ all_columns[name] ~ '))'}) -%}
    {%- endfor %}
select
    {{ window_tvf._project_columns(all_columns, expressions) }}
from {{ relation }} as source_rows
{%- endmacro %}


{#
    dropna(relation, thresh, columns=none): drops a row whose count of non-NULL values among `columns` (default:
    all columns) is below `thresh`; thresh=-1 drops a row only when all of those columns are NULL. (The reference's
    SQL writes the filter as `cnt < thresh`, keeping the rows it means to drop; this follows its prose.)
#}
{% macro dropna(relation, thresh=-1, columns=none) %}
    {{ return(adapter.dispatch('dropna', 'window_tvf')(relation, thresh, columns)) }}
{% endmacro %}

{% macro default__dropna(relation, thresh=-1, columns=none) %}
    {%- if thresh is sameas true or thresh is sameas false or thresh != -1 -%}
        {%- do window_tvf._positive_integer(thresh, 'dropna', 'thresh') -%}
    {%- endif -%}
    {%- if columns is none -%}
        {%- set considered = window_tvf._required_columns(relation, 'dropna').keys() | list -%}
    {%- else -%}
        {%- set considered = [] -%}
        {%- for name in window_tvf._column_names(columns, 'dropna', 'columns') -%}
            {%- do considered.append(window_tvf._unquoted(name) | lower) -%}
        {%- endfor -%}
        {%- if not considered -%}
            {{ window_tvf._argument_error('dropna', 'columns', columns, "expected at least one column, or none for all columns") }}
        {%- endif -%}
        {%- set known = window_tvf._known_columns(window_tvf._relation(relation, 'dropna')) -%}
        {%- if known -%}{%- do window_tvf._existing_columns(considered, known, 'dropna', 'columns') -%}{%- endif -%}
    {%- endif -%}
    {%- if execute and thresh > (considered | length) -%}
        {{ window_tvf._argument_error('dropna', 'thresh', thresh,
            "it exceeds the " ~ (considered | length) ~ " considered columns, so every row would be dropped") }}
    {%- endif -%}
    {%- if not execute and columns is none -%}{{ return('select * from ' ~ relation) }}{%- endif -%}
select source_rows.*
from {{ window_tvf._relation(relation, 'dropna') }} as source_rows
where
    {%- for name in considered %}
    (case when source_rows.`{{ name }}` is not null then 1 else 0 end){{ ' +' if not loop.last }}
    {%- endfor %}
    >= {{ 1 if thresh == -1 else thresh }}
{%- endmacro %}
