{#
    Flink's null data handling (fillna, dropna) for tables of any width: the columns and their types are read from
    the relation, so a 300-column table needs no column list.
#}

{#
    fillna(relation, value, columns=none): NULLs in `columns` become `value`. Without columns, every column that
    holds the value exactly is filled (literals.sql, _value_fits: a whole number fills the integer columns whose
    range holds it and the decimal/float/double columns that hold it exactly; a fraction the decimal/float/double
    columns that hold it; a string the string columns, never a date or timestamp column; a boolean boolean columns).
    A named column the value does not fit is a compile error, as is a value that fits none of the columns.
    fillna(relation, {column: value, ...}) fills each named column with its own value.
#}
{% macro fillna(relation, value, columns=none) %}
    {{ return(adapter.dispatch('fillna', 'window_tvf')(relation, value, columns)) }}
{% endmacro %}

{% macro default__fillna(relation, value, columns=none) %}
    {%- set relation = window_tvf._relation(relation, 'fillna') -%}
    {%- set all_columns = window_tvf._required_columns(relation, 'fillna') -%}
    {%- set fills = window_tvf._fill_literals(relation, all_columns, value, columns) -%}
    {%- if not execute -%}{{ return('select * from ' ~ relation) }}{%- endif -%}
    {%- set expressions = {} -%}
    {%- for name, literal in fills.items() -%}
        {%- do expressions.update({name: 'coalesce(source_rows.`' ~ name ~ '`, ' ~ literal ~ ')'}) -%}
    {%- endfor %}
select
    {{ window_tvf._project_columns(all_columns, expressions) }}
from {{ relation }} as source_rows
{%- endmacro %}

{#- {column: SQL literal of its fill value} for fillna; a value that does not fit a named column is an error. -#}
{% macro _fill_literals(relation, all_columns, value, columns) %}
    {%- if value is none -%}
        {{ window_tvf._argument_error('fillna', 'value', value, "a NULL fill leaves the NULLs as they are; expected a value") }}
    {%- elif value is not mapping and columns is none -%}
        {{ return(window_tvf._fill_literals_where_fitting(relation, all_columns, value)) }}
    {%- endif -%}
    {%- set fills = {} -%}
    {%- if value is mapping -%}
        {%- if columns is not none -%}
            {{ window_tvf._argument_error('fillna', 'columns', columns, "leave it out when value is a {column: value} dict") }}
        {%- endif -%}
        {%- for name, fill in value.items() -%}
            {%- do fills.update({window_tvf._existing_columns([name], all_columns, relation, 'fillna', 'value')[0]: fill}) -%}
        {%- endfor -%}
    {%- else -%}
        {%- for name in window_tvf._existing_columns(columns, all_columns, relation, 'fillna', 'columns') -%}
            {%- do fills.update({name: value}) -%}
        {%- endfor -%}
    {%- endif -%}
    {%- set literals = {} -%}
    {%- for name, fill in fills.items() if execute -%}
        {%- set literal = window_tvf._typed_literal(fill, all_columns[name]) -%}
        {%- if fill is none -%}
            {{ window_tvf._argument_error('fillna', 'value', fill, "a NULL fill leaves the NULLs as they are; expected a value") }}
        {%- elif literal is none -%}
            {{ window_tvf._argument_error('fillna', 'value', fill, "it does not fit column " ~ name ~ " of type "
                ~ all_columns[name] ~ " (" ~ all_columns[name] ~ " holds " ~ window_tvf._type_holds(all_columns[name]) ~ ")") }}
        {%- endif -%}
        {%- do literals.update({name: literal}) -%}
    {%- endfor -%}
    {{ return(literals) }}
{% endmacro %}

{#- Without columns: every column that holds the value (a string is text here, never a date or a time). -#}
{% macro _fill_literals_where_fitting(relation, all_columns, value) %}
    {%- set literals = {} -%}
    {%- for name, data_type in all_columns.items() -%}
        {%- set literal = window_tvf._typed_literal(value, data_type, text_as_time=false) -%}
        {%- if literal is not none -%}{%- do literals.update({name: literal}) -%}{%- endif -%}
    {%- endfor -%}
    {%- if execute and not literals -%}
        {%- set typed = [] -%}
        {%- for name, data_type in all_columns.items() -%}{%- do typed.append(name ~ ' ' ~ data_type) -%}{%- endfor -%}
        {{ window_tvf._argument_error('fillna', 'value', value, "it fits none of the columns of " ~ relation ~ " ("
            ~ typed | join(', ') ~ "), so nothing would be filled; name the columns to fill, or pick a value they hold") }}
    {%- endif -%}
    {{ return(literals) }}
{% endmacro %}


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
    {%- set relation = window_tvf._relation(relation, 'dropna') -%}
    {%- if columns is none -%}
        {%- set considered = window_tvf._required_columns(relation, 'dropna').keys() | list -%}
    {%- else -%}
        {%- set considered = window_tvf._existing_columns(columns, window_tvf._known_columns(relation), relation, 'dropna', 'columns') -%}
        {%- if not considered -%}
            {{ window_tvf._argument_error('dropna', 'columns', columns, "expected at least one column, or none for all columns") }}
        {%- endif -%}
    {%- endif -%}
    {%- if execute and thresh > (considered | length) -%}
        {{ window_tvf._argument_error('dropna', 'thresh', thresh,
            "it exceeds the " ~ (considered | length) ~ " considered columns, so every row would be dropped") }}
    {%- endif -%}
    {%- if not execute and columns is none -%}{{ return('select * from ' ~ relation) }}{%- endif -%}
select source_rows.*
from {{ relation }} as source_rows
where
    {%- for name in considered %}
    (case when source_rows.`{{ name }}` is not null then 1 else 0 end){{ ' +' if not loop.last }}
    {%- endfor %}
    >= {{ 1 if thresh == -1 else thresh }}
{%- endmacro %}
