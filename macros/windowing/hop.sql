{#
    HOP(TABLE relation, DESCRIPTOR(timecol), slide, size [, offset]): every row in each window [start, start + size)
    with start on the grid offset + k * slide that contains it. Size need not be a multiple of slide; a slide larger
    than the size leaves gaps, and rows in a gap belong to no window.
#}
{% macro hop(relation, timecol, slide, size, offset=none) %}
    {{ return(adapter.dispatch('hop', 'window_tvf')(relation, timecol, slide, size, offset)) }}
{% endmacro %}

{% macro default__hop(relation, timecol, slide, size, offset=none) %}
    {%- set relation = window_tvf._relation(relation, 'hop') -%}
    {%- set timecol = window_tvf._column_name(timecol, 'hop', 'timecol') -%}
    {%- set slide_us = window_tvf._positive_duration(slide, 'hop', 'slide') -%}
    {%- set size_us = window_tvf._positive_duration(size, 'hop', 'size') -%}
    {%- set offset_us = window_tvf._offset_duration(offset, 'hop') -%}
    {%- do window_tvf._check_columns(relation, 'hop', timecol) -%}
    {%- set time_expr = 'source_rows.' ~ timecol -%}
select
    hopped.*,
    {{ window_tvf._window_end_and_time(size_us) }}
from (
    select
        source_rows.*,
        -- d, the distance back to the latest grid start, is computed once per row (bound by the outer lambda);
        -- window k (k = 0, 1, ...) starts k slides before that start and holds the row while k * slide + d < size:
        -- ceil((size - d) / slide) windows, none when the row is in a gap
        explode(flatten(transform(
            array({{ window_tvf._since_grid_start(time_expr, slide_us, offset_us) }}),
            since_start -> transform(
                array_repeat(0, cast(({{ size_us + slide_us - 1 }}L - since_start) div {{ slide_us }}L as int)),
                (unused, window_index) -> {{ window_tvf._plus_micros(time_expr, '-(since_start + window_index * ' ~ slide_us ~ 'L)') }}
            )
        ))) as window_start
    from {{ relation }} as source_rows
    where {{ time_expr }} is not null
) as hopped
{%- endmacro %}
