{#
    Cumulating windows: partial results per step slice; a running merge within each period (the size grid's cell)
    gives every window that ends after a slice, up to the next non-empty slice of the period (or its end). Calendar
    periods work the same way: month-to-date by day slices by day, year-to-date by month by month.
#}
{% macro _cumulate_aggregate_sql(relation, spec, keys, plan, axis, key_count) %}
    {%- set step_span, size_span = window_tvf._cumulate_spans(spec.step, spec.size, 'window_aggregate') -%}
    {%- set grid = window_tvf._grid(size_span, spec.get('offset'), spec.get('week_start'), 'window_aggregate') -%}
    {%- set step_grid = window_tvf._cumulate_step_grid(grid, step_span) -%}
    {%- set period = window_tvf._cumulate_period(grid, step_grid, 'slice_start') -%}
    {%- set shuffle = window_tvf._slices_shuffle(relation, spec.timecol, keys, keys, axis, step_grid, key_count) -%}
    {%- set by_period = 'partition by ' ~ (keys + ['period_start']) | join(', ') -%}
    {%- set ends -%}
            select
                running.*,
                -- the windows whose last non-empty slice is this one: ends after it, up to the next non-empty slice
                explode({{ window_tvf._grid_points_between('slice_start', 'coalesce(next_slice_start, period_end)',
                    step_grid.period, step_grid.offset) }}) as window_end_position
            from (
                select
                    {% for key in keys %}{{ key }}, {% endfor -%}
                    slice_start,
                    period_start,
                    period_end,
                    lead(slice_start) over ({{ by_period }} order by slice_start) as next_slice_start
                    {{- ', window_tvf__like' if axis.type is none }},
                    {%- for column, partial, merge in window_tvf._partial_columns(plan) %}
                    {{ window_tvf._merge_call(merge, column) }} over ({{ by_period }} order by slice_start rows between unbounded preceding and current row)
                        as {{ column }}{{ ',' if not loop.last }}
                    {%- endfor %}
                from (
                    select
                        slices.*,
                        {{ period.start }} as period_start,
                        {{ period.end }} as period_end
                    from (
                        {{ window_tvf._slices_sql(relation, spec.timecol, keys, plan, axis, step_grid,
                            shuffle_by=keys if shuffle == 'rows' else []) }}
                    ) as slices
                ) as slices_in_periods
            ) as running
    {%- endset -%}
    {%- if window_tvf._distinct_measures(plan) -%}
        {%- set ends = window_tvf._cumulate_distinct_counts(ends, relation, spec.timecol, keys, plan, axis, grid, step_grid) -%}
    {%- endif -%}
    {%- set source -%}
        select
            ends.*,
            {{ window_tvf._grid_wall(grid, 'period_start') }} as window_tvf__start,
            {{ window_tvf._grid_wall(step_grid, 'window_end_position') }} as window_tvf__end
        from ({{ ends }}) as ends
    {%- endset -%}
    {{ return(window_tvf._sliced_output(keys, plan, source, axis, ['period_start', 'window_end_position'])) }}
{% endmacro %}
