{#
    HOP(TABLE relation, DESCRIPTOR(timecol), slide, size [, offset]): every row in each window [start, start + size)
    with start on the grid offset + k * slide that contains it. Size need not be a multiple of slide; a slide larger
    than the size leaves gaps, and rows in a gap belong to no window. Slide and size are both fixed lengths, or both
    calendar lengths (e.g. 3-month windows every month).
#}
{% macro hop(relation, timecol, slide, size, offset=none, time_zone=none, week_start=none) %}
    {%- set scope = window_tvf._batch_scope('hop', [[relation, {'tvf': 'hop', 'timecol': timecol, 'slide': slide,
        'size': size, 'offset': offset, 'time_zone': time_zone, 'week_start': week_start}]]) -%}
    {{ return(window_tvf._batch_windows(scope, adapter.dispatch('hop', 'window_tvf')(
        scope.relations[0], timecol, slide, size, offset, time_zone, week_start), window_tvf._known_columns(relation))) }}
{% endmacro %}

{% macro default__hop(relation, timecol, slide, size, offset=none, time_zone=none, week_start=none, window_prefix='') %}
    {%- set relation = window_tvf._relation(relation, 'hop') -%}
    {%- set timecol = window_tvf._column_name(timecol, 'hop', 'timecol') -%}
    {%- set slide_span, size_span = window_tvf._hop_spans(slide, size, 'hop') -%}
    {%- set grid = window_tvf._grid(slide_span, offset, week_start, 'hop') -%}
    {%- set size_units = size_span.months or size_span.micros -%}
    {%- do window_tvf._check_columns(relation, 'hop', timecol, window_columns=[] if window_prefix else none) -%}
    {%- set axis = window_tvf._time_axis(relation, timecol, time_zone, 'hop') -%}
select
    source_rows.*,
    {{ window_tvf._window_columns(axis,
        window_tvf._grid_wall(grid, 'hopped.window_tvf__start'),
        window_tvf._grid_wall(grid, 'hopped.window_tvf__start + ' ~ size_units),
        'source_rows.' ~ timecol, window_prefix) }}
from {{ window_tvf._positioned_sources(relation, timecol, axis, grid) }}
    -- the windows holding the row start on the slide grid within one size before it
    lateral view explode({{ window_tvf._grid_points_between('positioned.window_tvf__position - ' ~ size_units,
        'positioned.window_tvf__position', grid.period, grid.offset) }}) hopped as window_tvf__start
where source_rows.{{ timecol }} is not null
{%- endmacro %}
