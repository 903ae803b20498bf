{#
    TUMBLE(TABLE relation, DESCRIPTOR(timecol), size [, offset]): every row in the one window
    [start, start + size) whose start lies on the grid offset + k * size.
#}
{% macro tumble(relation, timecol, size, offset=none) %}
    {{ return(adapter.dispatch('tumble', 'window_tvf')(relation, timecol, size, offset)) }}
{% endmacro %}

{% macro default__tumble(relation, timecol, size, offset=none) %}
    {%- set relation = window_tvf._relation(relation, 'tumble') -%}
    {%- set timecol = window_tvf._column_name(timecol, 'tumble', 'timecol') -%}
    {%- set size_us = window_tvf._positive_duration(size, 'tumble', 'size') -%}
    {%- set offset_us = window_tvf._offset_duration(offset, 'tumble') -%}
    {%- do window_tvf._check_columns(relation, 'tumble', timecol) -%}
select
    tumbled.*,
    {{ window_tvf._window_end_and_time(size_us) }}
from (
    select
        source_rows.*,
        {{ window_tvf._plus_micros('source_rows.' ~ timecol,
            '-' ~ window_tvf._since_grid_start('source_rows.' ~ timecol, size_us, offset_us)) }} as window_start
    from {{ relation }} as source_rows
    where source_rows.{{ timecol }} is not null
) as tumbled
{%- endmacro %}
