{#
    TUMBLE(TABLE relation, DESCRIPTOR(timecol), size [, offset]): every row in the one window
    [start, start + size) whose start lies on the grid offset + k * size of the wall clock (macros/internal/window_grid.sql):
    fixed sizes as in Flink, and calendar sizes beyond it ('1 week', '1 month', '1 quarter', '1 year', 'N months').
#}
{% macro tumble(relation, timecol, size, offset=none, time_zone=none, week_start=none) %}
    {%- set scope = window_tvf._batch_scope('tumble', [[relation, {'tvf': 'tumble', 'timecol': timecol, 'size': size,
        'offset': offset, 'time_zone': time_zone, 'week_start': week_start}]]) -%}
    {{ return(window_tvf._batch_windows(scope, adapter.dispatch('tumble', 'window_tvf')(
        scope.relations[0], timecol, size, offset, time_zone, week_start), window_tvf._known_columns(relation))) }}
{% endmacro %}

{% macro default__tumble(relation, timecol, size, offset=none, time_zone=none, week_start=none, window_prefix='') %}
    {%- set relation = window_tvf._relation(relation, 'tumble') -%}
    {%- set timecol = window_tvf._column_name(timecol, 'tumble', 'timecol') -%}
    {%- set grid = window_tvf._grid(window_tvf._positive_span(size, 'tumble', 'size'), offset, week_start, 'tumble') -%}
    {%- do window_tvf._check_columns(relation, 'tumble', timecol, window_columns=[] if window_prefix else none) -%}
    {%- set axis = window_tvf._time_axis(relation, timecol, time_zone, 'tumble') -%}
select
    source_rows.*,
    {{ window_tvf._window_columns(axis,
        window_tvf._grid_wall(grid, 'tumbled.window_tvf__start'),
        window_tvf._grid_wall(grid, 'tumbled.window_tvf__start + ' ~ grid.period),
        'source_rows.' ~ timecol, window_prefix) }}
from {{ window_tvf._positioned_sources(relation, timecol, axis, grid) }},
    lateral (select {{ window_tvf._grid_cell_start(grid, 'positioned.window_tvf__position') }} as window_tvf__start) as tumbled
where source_rows.{{ timecol }} is not null
{%- endmacro %}
