{#
    Window aggregation without copying rows into every window they belong to (Flink's slicing), used by
    window_aggregate when every aggregate can be merged from partial results (merge_plan.sql). Rows are cut into
    slices on the wall clock, partial results are computed per slice, and each window kind merges its slices:
      - tumble.sql:   a slice is a window;
      - hop.sql:      slices of gcd(size, slide), merged into each window that covers them;
      - cumulate.sql: slices of one step, merged by a running merge within each period;
      - session.sql:  one sort numbers the sessions, then one GROUP BY.
    Everything is bigint arithmetic on wall-clock positions (macros/internal/window_grid.sql); window columns are
    made once per window at the end (_sliced_output), and merged sums are brought back to the row path's types
    (types.sql).
#}

{#-
    The sliced SQL for this aggregation, or none when it needs the row path. `key_count`: window_aggregate's `keys`
    argument ('few', 'many' or none), from which hop, cumulate and session choose how slices are shuffled
    (shuffle.sql).
-#}
{% macro _sliced_aggregate(relation, window, keys, measures, grouping, key_count=none) %}
    {%- if window is none or grouping is not none -%}{{ return(none) }}{%- endif -%}
    {%- set spec = window_tvf._window_spec(window, 'window_aggregate') -%}
    {#- A tumble's slices are its windows: every aggregate is computed whole, as on the row path. -#}
    {%- set plan = window_tvf._whole_plan(measures) if spec.tvf == 'tumble'
        else window_tvf._merge_plan(measures, exact_distinct=spec.tvf in ('hop', 'cumulate')) -%}
    {%- set partition_keys = window_tvf._column_names(spec.get('partition_by'), 'window_aggregate', 'partition_by') -%}
    {%- if spec.tvf == 'dynamic_session' or (spec.tvf == 'session' and partition_keys | reject('in', keys) | list)
        or window_tvf._reads_window_rows(measures) -%}
        {{ return(none) }}
    {%- elif spec.tvf != 'session' and plan is none -%}
        {{ return(none) }}
    {%- endif -%}
    {%- set relation = window_tvf._relation(relation, 'window_aggregate') -%}
    {%- set timecol = window_tvf._column_name(spec.timecol, 'window_aggregate', 'timecol') -%}
    {#- The output has no input columns, so an input with window columns (a previous step's output) is fine. -#}
    {%- do window_tvf._check_columns(relation, 'window_aggregate', timecol, {'group_by': keys, 'partition_by': partition_keys},
        window_columns=[]) -%}
    {%- set axis = window_tvf._time_axis(relation, timecol, spec.get('time_zone'), 'window_aggregate') -%}
    {%- if spec.tvf == 'tumble' -%}
        {{ return(window_tvf._tumble_aggregate_sql(relation, spec, keys, plan, axis)) }}
    {%- endif -%}
    {#- Merged values in the row path's types; none when some cannot be (an avg whose exact quotient needs the input's
        types, unknown here, or a decimal too wide for it: types.sql): the row path, or a session's row numbering. -#}
    {%- set plan = none if plan is none else window_tvf._typed_plan(plan, relation) -%}
    {%- if plan is none and spec.tvf != 'session' -%}{{ return(none) }}{%- endif -%}
    {%- if spec.tvf == 'session' -%}
        {{ return(window_tvf._session_aggregate_sql(relation, spec, keys, measures, plan, axis, key_count)) }}
    {%- endif -%}
    {{ return({'hop': window_tvf._hop_aggregate_sql, 'cumulate': window_tvf._cumulate_aggregate_sql}[spec.tvf](
        relation, spec, keys, plan, axis, key_count)) }}
{% endmacro %}


{#-
    Partial results per (keys, slice): rows grouped by the start of their cell on `grid` (`slice_start`, in the
    grid's unit). When the time column's type is unknown at compile time, the slice's earliest time
    (`window_tvf__like`) carries it to window_time. `shuffle_by`: the columns the raw rows are first shuffled by
    (the keys, or a session's partition keys), for a merge that then runs over each key's slices in order (a window
    partitioned by them): the grouping and that window share this one shuffle, and the partial aggregation before
    it is given up (shuffle.sql chooses). Empty: Spark aggregates partially before its shuffle by key and slice.
-#}
{% macro _slices_sql(relation, timecol, keys, plan, axis, grid, shuffle_by=[]) %}
    select
        {% for key in keys %}{{ key }}, {% endfor -%}
        slice_start,
        {%- if axis.type is none %}
        min({{ timecol }}) as window_tvf__like,
        {%- endif %}
        {%- for column, partial, merge in window_tvf._partial_columns(plan) %}
        {{ partial }} as {{ column }}{{ ',' if not loop.last }}
        {%- endfor %}
    from (
        select
            positioned.*,
            {{ window_tvf._grid_cell_start(grid, 'window_tvf__position') }} as slice_start
        from (
            {{ window_tvf._positioned_rows(relation, timecol, axis, grid) }}
            {%- if shuffle_by %}
            distribute by {{ shuffle_by | join(', ') }}
            {%- endif %}
        ) as positioned
    ) as sliced_rows
    group by {% for key in keys %}{{ key }}, {% endfor %}slice_start
{%- endmacro %}

{#-
    The output columns: window columns, keys, then each aggregate's final value from its merged partials. `source`
    has the window's wall-clock start and end as window_tvf__start and window_tvf__end (microseconds), and
    window_tvf__like when the time column's type is unknown. `window_by`: the columns of `source` that identify a
    window of a key (types.sql, _typed_window).
-#}
{% macro _sliced_output(keys, plan, source, axis, window_by=[]) %}
select
    {{ window_tvf._window_columns(axis, 'window_tvf__start', 'window_tvf__end', 'window_tvf__like') }},
    {%- for key in keys %}
    {{ key }},
    {%- endfor %}
    {%- for measure in plan | rejectattr('hidden', 'defined') %}
    {{ measure.final }} as {{ measure.name }}{{ ',' if not loop.last }}
    {%- endfor %}
from ({{ source }}) as merged_windows
{{- window_tvf._typed_window(plan, keys + window_by, 'window_tvf__start') }}
{%- endmacro %}

{#- `, min(window_tvf__like) as window_tvf__like` when a merge must carry the time column's type, else nothing. -#}
{% macro _merged_like(axis, expression='min(window_tvf__like)') -%}
    {{ ', ' ~ expression ~ ' as window_tvf__like' if axis.type is none }}
{%- endmacro %}

{#-
    `partition by` the keys for the sliced paths' windows over slices or windows (lag, lead, running merges).
    Without keys their rows are one sequence, one row per slice or window: few whatever the events' volume, and one
    task is what they need. Spark warns of such a window (No Partition Defined) once per query and drops a constant
    partition expression, so the sequence is partitioned by `position` * 0: the same for every row, and not constant
    to Spark.
-#}
{% macro _slice_partition(keys, position) -%}
    partition by {{ keys | join(', ') if keys else position ~ ' * 0' }}
{%- endmacro %}
