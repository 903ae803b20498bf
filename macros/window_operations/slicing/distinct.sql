{#
    Exact count(distinct x) over sliced hop and cumulate windows, without copying rows (or values) into windows.
    Flink does not slice DISTINCT aggregates; these give the row path's results (NULL x ignored, as SQL's
    count(distinct x) does) at the cost of the distinct (key, x, slice) rows:
      1. the rows are reduced to their distinct (keys, slice, x), x not NULL;
      2. each value is counted once per window, at its earliest slice inside the window, as +1 at the first window
         start (hop) or end (cumulate) that counts it and -1 past the last;
      3. a running sum of those changes per key, over the windows in order, is every window's distinct count.
    HOP: the windows where slice s is x's earliest slice start after x's previous slice of the key (lag) and after
    s - size, up to s: a range of window starts, so +1 at its first start and -1 one slide after its last.
    CUMULATE: x counts in every window of its period that ends after its first slice in the period: +1 there.
    The windows themselves (and which exist: those with rows, Flink's semantics) come from the sliced path's merge
    of the other aggregates, or of a hidden count(*) (merge_plan.sql): a window whose rows all have a NULL x exists
    with the count 0. Sessions need none of this: a key's sessions are disjoint, so the session path groups each
    session's rows once (session.sql).
#}

{#- The distinct (keys, slice_start, window_tvf__value) of `relation` on `grid`, NULL values left out. -#}
{% macro _distinct_values_in_slices(relation, timecol, keys, value, axis, grid) %}
    select distinct
        {% for key in keys %}{{ key }}, {% endfor -%}
        slice_start,
        window_tvf__value
    from (
        select
            positioned.*,
            {{ window_tvf._grid_cell_start(grid, 'window_tvf__position') }} as slice_start,
            ({{ value }}) as window_tvf__value
        from (
            {{ window_tvf._positioned_rows(relation, timecol, axis, grid) }}
        ) as positioned
    ) as valued_rows
    where window_tvf__value is not null
{%- endmacro %}

{#-
    Changes of the running distinct counts per (keys, `extra` columns, `position`): one column window_tvf__delta_<i>
    per distinct measure, from `changes[i]` (SQL with the keys, `extra`, `position` and window_tvf__delta).
-#}
{% macro _distinct_changes(changes, keys, extra, position) %}
    {%- set grouping = keys + extra + [position] -%}
    select
        {% for column in grouping %}{{ column }}, {% endfor -%}
        {%- for _ in changes %}
        sum(window_tvf__delta_{{ loop.index }}) as window_tvf__delta_{{ loop.index }}{{ ',' if not loop.last }}
        {%- endfor %}
    from (
        {%- for sql in changes %}
        {%- set measure_index = loop.index %}
        select
            {% for column in grouping %}{{ column }}, {% endfor -%}
            {%- for _ in changes %}
            {{ 'window_tvf__delta' if loop.index == measure_index else '0' }} as window_tvf__delta_{{ loop.index }}
                {{- ',' if not loop.last }}
            {%- endfor %}
        from ({{ sql }}) as changes_{{ measure_index }}
        {{ 'union all' if not loop.last }}
        {%- endfor %}
    ) as all_changes
    group by {{ grouping | join(', ') }}
{%- endmacro %}

{#-
    `windows` (SQL: one row per window, with `columns`) with each distinct measure's count added as its final
    column: the windows and the changes in one stream per (keys, `extra`), ordered by `position`, changes before
    the window at the same position; a running sum of the changes up to each window.
-#}
{% macro _with_distinct_counts(windows, columns, changes, keys, extra, position, plan) %}
    {%- set measures = window_tvf._distinct_measures(plan) -%}
    {%- set by = keys + extra -%}
    {%- set count_columns = [] -%}
    {%- for measure in measures -%}{%- do count_columns.append(measure.final) -%}{%- endfor -%}
    select *
    from (
        select
            windows_and_changes.*,
            {%- for column in count_columns %}
            coalesce(sum(window_tvf__delta_{{ loop.index }}) over window_tvf__running, 0) as {{ column }}
                {{- ',' if not loop.last }}
            {%- endfor %}
        from (
            select
                {% for column in columns %}{{ column }}, {% endfor -%}
                1 as window_tvf__is_window,
                {%- for _ in count_columns %}
                0 as window_tvf__delta_{{ loop.index }}{{ ',' if not loop.last }}
                {%- endfor %}
            from ({{ windows }}) as windows
            union all
            select
                {% for column in columns %}{{ column if column in by + [position] else 'null' }}, {% endfor -%}
                0 as window_tvf__is_window,
                {%- for _ in count_columns %}
                window_tvf__delta_{{ loop.index }}{{ ',' if not loop.last }}
                {%- endfor %}
            from ({{ window_tvf._distinct_changes(changes, keys, extra, position) }}) as changes
        ) as windows_and_changes
        window window_tvf__running as (
            {{ window_tvf._slice_partition(by, position) }} order by {{ position }}, window_tvf__is_window
            rows between unbounded preceding and current row)
    ) as counted
    where window_tvf__is_window = 1
{%- endmacro %}

{#-
    HOP: `merged` (keys, window_start_position, partial columns) with each distinct count; slices on `slice_grid`,
    windows on `grid` (the slide's), `size` in the grid's unit.
-#}
{% macro _hop_distinct_counts(merged, relation, timecol, keys, plan, axis, slice_grid, grid, size) %}
    {%- set slide, offset = grid.period, grid.offset -%}
    {%- set changes = [] -%}
    {%- for measure in window_tvf._distinct_measures(plan) -%}
        {%- set values = window_tvf._distinct_values_in_slices(relation, timecol, keys, measure.distinct, axis, slice_grid) -%}
        {%- set after = 'greatest(coalesce(window_tvf__previous, slice_start - ' ~ size ~ '), slice_start - ' ~ size ~ ')' -%}
        {%- set change -%}
            select
                {% for key in keys %}{{ key }}, {% endfor -%}
                stack(2, window_tvf__first, 1, window_tvf__last + {{ slide }}, -1) as (window_start_position, window_tvf__delta)
            from (
                select
                    {% for key in keys %}{{ key }}, {% endfor -%}
                    {{ window_tvf._grid_floor(after, slide, offset) }} + {{ slide }} as window_tvf__first,
                    {{ window_tvf._grid_floor('slice_start', slide, offset) }} as window_tvf__last
                from (
                    select
                        values_in_slices.*,
                        lag(slice_start) over (partition by {% for key in keys %}{{ key }}, {% endfor -%}
                            window_tvf__value order by slice_start) as window_tvf__previous
                    from ({{ values }}) as values_in_slices
                ) as occurrences
            ) as counted_windows
            where window_tvf__last >= window_tvf__first
        {%- endset -%}
        {%- do changes.append(change) -%}
    {%- endfor -%}
    {%- set columns = keys + ['window_start_position'] + (['window_tvf__like'] if axis.type is none else []) -%}
    {%- for column, partial, merge in window_tvf._partial_columns(plan) -%}{%- do columns.append(column) -%}{%- endfor -%}
    {{ return(window_tvf._with_distinct_counts(merged, columns, changes, keys, [], 'window_start_position', plan)) }}
{% endmacro %}

{#-
    CUMULATE: `ends` (keys, period_start, window_end_position, partial columns) with each distinct count; a value
    first seen in slice f of a period counts in the period's windows ending after f (position f + 1 sorts after a
    window ending at f and before the next).
-#}
{% macro _cumulate_distinct_counts(ends, relation, timecol, keys, plan, axis, grid, step_grid) %}
    {%- set period = window_tvf._cumulate_period(grid, step_grid, 'slice_start') -%}
    {%- set changes = [] -%}
    {%- for measure in window_tvf._distinct_measures(plan) -%}
        {%- set values = window_tvf._distinct_values_in_slices(relation, timecol, keys, measure.distinct, axis, step_grid) -%}
        {%- set change -%}
            select
                {% for key in keys %}{{ key }}, {% endfor -%}
                period_start,
                window_tvf__first + 1 as window_end_position,
                count(*) as window_tvf__delta
            from (
                select
                    {% for key in keys %}{{ key }}, {% endfor -%}
                    period_start,
                    min(slice_start) as window_tvf__first
                from (
                    select values_in_slices.*, {{ period.start }} as period_start
                    from ({{ values }}) as values_in_slices
                ) as values_in_periods
                group by {% for key in keys %}{{ key }}, {% endfor %}period_start, window_tvf__value
            ) as first_slices
            group by {% for key in keys %}{{ key }}, {% endfor %}period_start, window_tvf__first
        {%- endset -%}
        {%- do changes.append(change) -%}
    {%- endfor -%}
    {%- set columns = keys + ['period_start', 'window_end_position'] + (['window_tvf__like'] if axis.type is none else []) -%}
    {%- for column, partial, merge in window_tvf._partial_columns(plan) -%}{%- do columns.append(column) -%}{%- endfor -%}
    {{ return(window_tvf._with_distinct_counts(ends, columns, changes, keys, ['period_start'], 'window_end_position', plan)) }}
{% endmacro %}
