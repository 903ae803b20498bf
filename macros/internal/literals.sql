{#- A Python/Jinja value as a Spark SQL literal: NULL, true/false, numbers as written, timestamps, escaped strings. -#}
{% macro _sql_literal(value) %}
    {%- if value is none -%}
        {{ return('null') }}
    {%- elif value is sameas true or value is sameas false -%}
        {{ return('true' if value else 'false') }}
    {%- elif value is number -%}
        {{ return(value | string) }}
    {%- elif value.isoformat is defined -%}
        {{ return("'" ~ value.isoformat(' ') ~ "'") }}
    {%- else -%}
        {{ return("'" ~ (value | string).replace('\\', '\\\\').replace("'", "\\'") ~ "'") }}
    {%- endif -%}
{% endmacro %}


{#- Whether a value can stand in a column of `data_type` without changing meaning (NULL fits every column). -#}
{% macro _value_fits(value, data_type) %}
    {%- set data_type = data_type | lower -%}
    {%- set integer_types = ['tinyint', 'smallint', 'int', 'integer', 'bigint', 'byte', 'short', 'long'] -%}
    {%- set fractional = data_type in ['float', 'double', 'real'] or data_type.startswith('decimal') -%}
    {%- if value is none -%}
        {{ return(true) }}
    {%- elif value is sameas true or value is sameas false -%}
        {{ return(data_type == 'boolean') }}
    {%- elif value is number -%}
        {{ return(fractional or (data_type in integer_types and value == (value | int))) }}
    {%- elif value is string -%}
        {{ return(data_type == 'string' or data_type.startswith('varchar') or data_type.startswith('char')) }}
    {%- endif -%}
    {{ return(false) }}
{% endmacro %}


{#- The columns of a relation as {lower-case name: type}, which a table operation needs to list its output. -#}
{% macro _required_columns(relation, macro_name) %}
    {%- set relation = window_tvf._relation(relation, macro_name) -%}
    {%- set columns = window_tvf._known_columns(relation) -%}
    {%- if execute and not columns -%}
        {{ window_tvf._argument_error(macro_name, 'relation', relation | string,
            "this operation reads the relation's columns and types from the warehouse, so it needs a ref()/source() "
            ~ "relation that exists (a CTE name cannot be read)") }}
    {%- endif -%}
    {{ return(columns) }}
{% endmacro %}


{#- Named columns must exist in `columns` (as returned by _required_columns); returns their lower-case names. -#}
{% macro _existing_columns(names, columns, macro_name, argument) %}
    {%- set found = [] -%}
    {%- for name in window_tvf._column_names(names, macro_name, argument) -%}
        {%- set key = window_tvf._unquoted(name) | lower -%}
        {%- if execute and key not in columns -%}
            {{ window_tvf._argument_error(macro_name, argument, name,
                "no such column; the relation's columns are: " ~ columns.keys() | join(', ')) }}
        {%- endif -%}
        {%- do found.append(key) -%}
    {%- endfor -%}
    {{ return(found) }}
{% endmacro %}


{#- Every column of `columns` (as from _required_columns) in order, replaced by `expressions[name]` where given. -#}
{% macro _project_columns(columns, expressions) %}
    {%- set projection = [] -%}
    {%- for name in columns -%}
        {%- do projection.append(expressions[name] ~ ' as `' ~ name ~ '`' if name in expressions else 'source_rows.`' ~ name ~ '`') -%}
    {%- endfor -%}
    {{ return(projection | join(',\n    ')) }}
{% endmacro %}


{#- An aware datetime (as from _utc_instant) as a Spark `timestamp` literal of that instant, to the microsecond. -#}
{% macro _instant_literal(instant) -%}
    timestamp'{{ instant.astimezone(modules.pytz.utc).strftime('%Y-%m-%d %H:%M:%S.%f') }}Z'
{%- endmacro %}
