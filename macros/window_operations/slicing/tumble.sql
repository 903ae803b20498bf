{#- Tumbling windows: each window is one slice, so one GROUP BY of the rows by their window's grid position. -#}
{% macro _tumble_aggregate_sql(relation, spec, keys, plan, axis) %}
    {%- set grid = window_tvf._grid(window_tvf._positive_span(spec.size, 'window_aggregate', 'size'),
        spec.get('offset'), spec.get('week_start'), 'window_aggregate') -%}
    {%- set source -%}
        select
            slices.*,
            {{ window_tvf._grid_wall(grid, 'slice_start') }} as window_tvf__start,
            {{ window_tvf._grid_wall(grid, 'slice_start + ' ~ grid.period) }} as window_tvf__end
        from ({{ window_tvf._slices_sql(relation, spec.timecol, keys, plan, axis, grid) }}) as slices
    {%- endset -%}
    {{ return(window_tvf._sliced_output(keys, plan, source, axis)) }}
{% endmacro %}
