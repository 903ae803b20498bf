{#
    CUMULATE(TABLE relation, DESCRIPTOR(timecol), step, size [, offset]): windows that start on the grid
    offset + k * size and end after one step, two steps, ... up to size. A row is in every window of its
    max-size period whose end is after it.
#}
{% macro cumulate(relation, timecol, step, size, offset=none) %}
    {{ return(adapter.dispatch('cumulate', 'window_tvf')(relation, timecol, step, size, offset)) }}
{% endmacro %}

{% macro default__cumulate(relation, timecol, step, size, offset=none) %}
    {%- set relation = window_tvf._relation(relation, 'cumulate') -%}
    {%- set timecol = window_tvf._column_name(timecol, 'cumulate', 'timecol') -%}
    {%- set step_us, size_us = window_tvf._cumulate_durations(step, size) -%}
    {%- set offset_us = window_tvf._offset_duration(offset, 'cumulate') -%}
    {%- do window_tvf._check_columns(relation, 'cumulate', timecol) -%}
    {%- set time_expr = 'source_rows.' ~ timecol -%}
select
    cumulated.*,
    {{ window_tvf._plus_micros('window_end', -1000) }} as window_time
from (
    select
        source_rows.*,
        -- d, the distance back to the start of the row's max-size period, is computed once per row (bound by the
        -- outer lambda); the row is in the windows ending start + j * step after it: j from floor(d / step) + 1
        -- to size / step
        inline(flatten(transform(
            array({{ window_tvf._since_grid_start(time_expr, size_us, offset_us) }}),
            since_start -> transform(
                sequence(cast(since_start div {{ step_us }}L as int) + 1, {{ size_us // step_us }}),
                step_count -> struct(
                    {{ window_tvf._plus_micros(time_expr, '-since_start') }} as window_start,
                    {{ window_tvf._plus_micros(time_expr, 'step_count * ' ~ step_us ~ 'L - since_start') }} as window_end
                )
            )
        )))
    from {{ relation }} as source_rows
    where {{ time_expr }} is not null
) as cumulated
{%- endmacro %}


{#- Step and size in microseconds; size must be a whole multiple of step (Flink's rule for CUMULATE). -#}
{% macro _cumulate_durations(step, size, macro_name='cumulate') %}
    {%- set step_us = window_tvf._positive_duration(step, macro_name, 'step') -%}
    {%- set size_us = window_tvf._positive_duration(size, macro_name, 'size') -%}
    {%- if size_us % step_us != 0 -%}
        {{ window_tvf._argument_error(macro_name, 'size', size,
            "it must be a whole multiple of step " ~ (step | tojson) ~ " (Flink's rule for CUMULATE)") }}
    {%- endif -%}
    {{ return([step_us, size_us]) }}
{% endmacro %}
