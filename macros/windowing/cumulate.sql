{#
    CUMULATE(TABLE relation, DESCRIPTOR(timecol), step, size [, offset]): windows that start on the grid
    offset + k * size and end after one step, two steps, ... up to size. A row is in every window of its
    max-size period whose end is after it. Calendar sizes work too: month-to-date by day (step '1 day', size
    '1 month'), year-to-date by month, week-to-date by day.
#}
{% macro cumulate(relation, timecol, step, size, offset=none, time_zone=none, week_start=none) %}
    {%- set scope = window_tvf._batch_scope('cumulate', [[relation, {'tvf': 'cumulate', 'timecol': timecol, 'step': step,
        'size': size, 'offset': offset, 'time_zone': time_zone, 'week_start': week_start}]]) -%}
    {{ return(window_tvf._batch_windows(scope, adapter.dispatch('cumulate', 'window_tvf')(
        scope.relations[0], timecol, step, size, offset, time_zone, week_start), window_tvf._known_columns(relation))) }}
{% endmacro %}

{% macro default__cumulate(relation, timecol, step, size, offset=none, time_zone=none, week_start=none, window_prefix='') %}
    {%- set relation = window_tvf._relation(relation, 'cumulate') -%}
    {%- set timecol = window_tvf._column_name(timecol, 'cumulate', 'timecol') -%}
    {%- set step_span, size_span = window_tvf._cumulate_spans(step, size, 'cumulate') -%}
    {%- set grid = window_tvf._grid(size_span, offset, week_start, 'cumulate') -%}
    {%- do window_tvf._check_columns(relation, 'cumulate', timecol, window_columns=[] if window_prefix else none) -%}
    {%- set axis = window_tvf._time_axis(relation, timecol, time_zone, 'cumulate') -%}
    {%- set step_grid = window_tvf._cumulate_step_grid(grid, step_span) -%}
    {%- set period = window_tvf._cumulate_period(grid, step_grid, 'positioned.window_tvf__position') -%}
select
    source_rows.*,
    {{ window_tvf._window_columns(axis,
        window_tvf._grid_wall(grid, period.start),
        window_tvf._grid_wall(step_grid, 'cumulated.window_tvf__end'),
        'source_rows.' ~ timecol, window_prefix) }}
from {{ window_tvf._positioned_sources(relation, timecol, axis, step_grid) }}
    -- the windows holding the row: the step ends after it, up to the end of its period
    lateral view explode({{ window_tvf._grid_points_between('positioned.window_tvf__position', period.end,
        step_grid.period, step_grid.offset) }}) cumulated as window_tvf__end
where source_rows.{{ timecol }} is not null
{%- endmacro %}
