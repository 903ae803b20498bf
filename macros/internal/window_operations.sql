{#
    Helpers shared by count_window and the evictors (macros/window_operations/). Flink keeps a window's elements
    in arrival order, without guarantees; a batch table has no arrival order, so these macros define the buffer
    order as time order, ties broken by the whole row (struct comparison, field by field in column order). Rows that
    are equal in every column are interchangeable, so the result is the same on every run.
#}

{#- The buffer order over `source_rows`: ' desc' as `direction` gives the last element first. -#}
{% macro _buffer_order(timecol, direction='') -%}
    source_rows.{{ timecol }}{{ direction }}, struct(source_rows.*){{ direction }}
{%- endmacro %}

{#- `partition by a, b` over `source_rows`, or nothing when there are no columns (one sequence). -#}
{% macro _partition_clause(columns) -%}
    {%- set qualified = [] -%}
    {%- for column in columns -%}
        {%- do qualified.append('source_rows.' ~ column) -%}
    {%- endfor -%}
    {{ 'partition by ' ~ qualified | join(', ') if qualified }}
{%- endmacro %}

{% macro _boolean_argument(value, macro_name, argument) %}
    {%- if value is not sameas true and value is not sameas false -%}
        {{ window_tvf._argument_error(macro_name, argument, value, "expected true or false") }}
    {%- endif -%}
    {{ return(value) }}
{% endmacro %}

{#- A number (integer or decimal, not a bool or a string), returned as SQL literal text. -#}
{% macro _number_argument(value, macro_name, argument) %}
    {%- if value is not number or value is sameas true or value is sameas false
        or (value | string) in ('nan', 'inf', '-inf') -%}
        {{ window_tvf._argument_error(macro_name, argument, value, "expected a number, such as 10 or 2.5") }}
    {%- endif -%}
    {{ return(value | string) }}
{% endmacro %}

{#- The columns that identify one window pane: default window_start and window_end; never an empty list. -#}
{% macro _window_by(value, macro_name) %}
    {%- set columns = window_tvf._column_names(['window_start', 'window_end'] if value is none else value,
        macro_name, 'window_by') -%}
    {%- if not columns -%}
        {{ window_tvf._argument_error(macro_name, 'window_by', value,
            "expected the columns that identify one window pane, e.g. ['window_start', 'window_end'] "
            ~ "or ['window_index', 'user_id'] for count windows") }}
    {%- endif -%}
    {{ return(columns) }}
{% endmacro %}
