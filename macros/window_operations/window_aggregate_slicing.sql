{#
    Window aggregation without copying rows into every window they belong to (Flink's slicing), used by
    window_aggregate when every aggregate can be merged from partial results.

    - tumble:   one GROUP BY on the window start computed per row.
    - hop:      partial results per slice of gcd(size, slide); each window merges the slices it covers.
                When a slice lies in at most 64 windows, each slice's partials are copied into its windows and
                merged by one GROUP BY (like window() on rows, but on slices: far fewer when keys are dense).
                For larger overlaps (1 day / 1 minute: 1440 windows per slice) windows are listed once, at their
                first non-empty slice, and merged with the van Herk/Gil-Werman block split: blocks of one window
                size, so a window covers the tail of one block and the head of the next; running merges over
                each block (one ascending, one descending) give both parts of every window in linear time, for
                min/max as well as sums.
    - cumulate: partial results per step slice; a running merge within each max-size period gives every window
                ending after that slice, up to the next non-empty slice.
    - session:  one sort per partition numbers the sessions, then a GROUP BY on that number.
#}

{#-
    How each aggregate merges: a list of {name, partials: [(column, partial call, merge function)], final}, or
    none when some aggregate cannot be merged (e.g. count(distinct x), percentile, collect_list).
    avg(x) is sum(x) / count(x) on both paths, so they agree exactly.
-#}
{% macro _merge_plan(measures) %}
    {%- set merges = {'count': 'sum', 'count_if': 'sum', 'sum': 'sum', 'min': 'min', 'max': 'max',
        'bool_and': 'bool_and', 'every': 'bool_and', 'bool_or': 'bool_or', 'some': 'bool_or'} -%}
    {%- set plan = [] -%}
    {%- for name, call in measures.items() -%}
        {%- set single_call = window_tvf._single_call(call) -%}
        {%- if single_call is none -%}
            {{ return(none) }}
        {%- endif -%}
        {%- set function, arguments = single_call -%}
        {%- if (arguments | trim | lower).startswith('distinct') -%}
            {{ return(none) }}
        {%- elif function in ('avg', 'mean') -%}
            {%- do plan.append({'name': name, 'partials': [
                ('partial_' ~ name ~ '_sum', 'sum(' ~ arguments ~ ')', 'sum'),
                ('partial_' ~ name ~ '_count', 'count(' ~ arguments ~ ')', 'sum')],
                'final': 'try_divide(partial_' ~ name ~ '_sum, partial_' ~ name ~ '_count)'}) -%}
        {%- elif function in merges -%}
            {%- do plan.append({'name': name, 'partials': [('partial_' ~ name, call, merges[function])],
                'final': 'partial_' ~ name}) -%}
        {%- else -%}
            {{ return(none) }}
        {%- endif -%}
    {%- endfor -%}
    {{ return(plan) }}
{% endmacro %}

{#- Every partial column of a merge plan, as (column, partial call, merge function). -#}
{% macro _partial_columns(plan) %}
    {%- set columns = [] -%}
    {%- for measure in plan -%}{%- do columns.extend(measure.partials) -%}{%- endfor -%}
    {{ return(columns) }}
{% endmacro %}

{#- The row path's call for an aggregate: avg as sum / count, like the sliced path. -#}
{% macro _row_aggregate(call) %}
    {%- set single_call = window_tvf._single_call(call) -%}
    {%- if single_call and single_call[0] in ('avg', 'mean') and not (single_call[1] | trim | lower).startswith('distinct') -%}
        {{ return('try_divide(sum(' ~ single_call[1] ~ '), count(' ~ single_call[1] ~ '))') }}
    {%- endif -%}
    {{ return(call) }}
{% endmacro %}

{#-
    [function name, arguments] when `call` is exactly one function call, such as 'sum(price * qty)'; none for a
    compound expression such as 'max(a) - min(a)', which cannot be merged from partials of its parts' kind.
-#}
{% macro _single_call(call) %}
    {%- set match = modules.re.match("(?s)^\s*([A-Za-z_][A-Za-z0-9_]*)\s*\((.*)\)\s*$", call) -%}
    {%- if not match -%}{{ return(none) }}{%- endif -%}
    {%- set scan = namespace(depth=0, closed_early=false, quote=none) -%}
    {%- for character in match.group(2) -%}
        {%- if scan.quote -%}
            {%- if character == scan.quote -%}{%- set scan.quote = none -%}{%- endif -%}
        {%- elif character in ("'", '"', '`') -%}
            {%- set scan.quote = character -%}
        {%- elif character == '(' -%}
            {%- set scan.depth = scan.depth + 1 -%}
        {%- elif character == ')' -%}
            {%- set scan.depth = scan.depth - 1 -%}
            {%- if scan.depth < 0 -%}{%- set scan.closed_early = true -%}{%- endif -%}
        {%- endif -%}
    {%- endfor -%}
    {{ return(none if scan.closed_early or scan.depth != 0 else [match.group(1) | lower, match.group(2)]) }}
{% endmacro %}


{#-
    Partial results per (keys, slice): slices of `slice_us` on the grid offset + k * slice. Rows are grouped by the
    slice's start in microseconds; the start as a time (typed like the time column) is computed once per slice,
    from its earliest row: Spark evaluates timestampadd through ZonedDateTime, far slower than bigint arithmetic.
-#}
{% macro _slices_sql(relation, timecol, keys, plan, slice_us, offset_us) %}
    {%- set time_expr = 'source_rows.' ~ timecol -%}
    select
        {% for key in keys %}{{ key }}, {% endfor -%}
        {{ window_tvf._time_at('slice_us', 'min(' ~ timecol ~ ')') }} as slice_start,
        slice_us,
        {%- for column, partial, merge in window_tvf._partial_columns(plan) %}
        {{ partial }} as {{ column }}{{ ',' if not loop.last }}
        {%- endfor %}
    from (
        select
            source_rows.*,
            {{ window_tvf._grid_floor(window_tvf._epoch_micros(time_expr), slice_us, offset_us) }} as slice_us
        from {{ relation }} as source_rows
        where {{ time_expr }} is not null
    ) as sliced_rows
    group by {% for key in keys %}{{ key }}, {% endfor %}slice_us
{%- endmacro %}

{#- The output columns: window bounds, keys, then each aggregate's final value from its merged partials. -#}
{% macro _sliced_output(keys, plan, source) %}
select
    {{ window_tvf._window_and_keys(keys) }}
    {%- for measure in plan %}
    {{ measure.final }} as {{ measure.name }}{{ ',' if not loop.last }}
    {%- endfor %}
from ({{ source }}) as merged_windows
{%- endmacro %}

{#- Floor division on the grid offset + k * period: which period `micros` falls in. -#}
{% macro _grid_index(micros, period, offset) -%}
    ({{ micros }} - ({{ offset }}) - pmod({{ micros }} - ({{ offset }}), {{ period }})) div {{ period }}
{%- endmacro %}


{% macro _tumble_aggregate_sql(relation, spec, keys, plan) %}
    {%- set size = window_tvf._positive_duration(spec.size, 'window_aggregate', 'size') -%}
    {%- set offset = window_tvf._offset_duration(spec.get('offset'), 'window_aggregate') -%}
    {%- set source -%}
        select
            slices.*,
            slice_start as window_start,
            {{ window_tvf._plus_micros('slice_start', size) }} as window_end
        from ({{ window_tvf._slices_sql(relation, spec.timecol, keys, plan, size, offset) }}) as slices
    {%- endset -%}
    {{ return(window_tvf._sliced_output(keys, plan, source)) }}
{% endmacro %}


{% macro _hop_aggregate_sql(relation, spec, keys, plan) %}
    {%- set slide = window_tvf._positive_duration(spec.slide, 'window_aggregate', 'slide') -%}
    {%- set size = window_tvf._positive_duration(spec.size, 'window_aggregate', 'size') -%}
    {%- set offset = window_tvf._offset_duration(spec.get('offset'), 'window_aggregate') -%}
    {%- set ns = namespace(a=slide, b=size) -%}
    {%- for _ in range(64) if ns.b != 0 -%}{%- set ns.a, ns.b = ns.b, ns.a % ns.b -%}{%- endfor -%}
    {%- set slice = ns.a -%}
    {%- if (size + slide - 1) // slide <= 64 -%}
        {{ return(window_tvf._hop_fan_out_sql(relation, spec, keys, plan, slice, offset)) }}
    {%- endif -%}
    {%- set key_list = keys | join(', ') -%}
    {%- set by_key = ('partition by ' ~ key_list) if keys else '' -%}
    {%- set by_block = 'partition by ' ~ (keys + ['block_index']) | join(', ') -%}
    {%- set partial_columns = [] -%}
    {%- for column, partial, merge in window_tvf._partial_columns(plan) -%}{%- do partial_columns.append((column, merge)) -%}{%- endfor -%}
    {%- set source -%}
with window_tvf__slices as (
    {{ window_tvf._slices_sql(relation, spec.timecol, keys, plan, slice, offset) }}
),

-- each window once, at its first non-empty slice: starts on the slide grid after both the previous non-empty
-- slice of the key and one window size back, up to this slice
window_tvf__window_starts as (
    select
        {% for key in keys %}{{ key }}, {% endfor -%}
        {{ window_tvf._plus_micros('slice_start', 'window_start_us - slice_us') }} as window_start,
        window_start_us
    from (
        select
            first_slices.*,
            explode({{ window_tvf._grid_points_between('after_us', 'slice_us', slide, offset) }}) as window_start_us
        from (
            select
                {% for key in keys %}{{ key }}, {% endfor -%}
                slice_start,
                slice_us,
                greatest(coalesce(lag(slice_us) over ({{ by_key }} order by slice_us), slice_us - {{ size }}), slice_us - {{ size }})
                    as after_us
            from window_tvf__slices
        ) as first_slices
    ) as starts
),

-- slices and, per window, a start marker (in the start's block) and an end marker (in the next block)
window_tvf__stream as (
    select
        {% for key in keys %}{{ key }}, {% endfor -%}
        slice_us as point_us,
        {{ window_tvf._grid_index('slice_us', size, offset) }} as block_index,
        1 as is_slice,
        0 as is_end,
        null as window_start,
        {%- for column, merge in partial_columns %}
        {{ column }}{{ ',' if not loop.last }}
        {%- endfor %}
    from window_tvf__slices
    union all
    select
        {% for key in keys %}{{ key }}, {% endfor -%}
        window_start_us + {{ size }}L * is_end,
        {{ window_tvf._grid_index('window_start_us', size, offset) }} + is_end,
        0,
        is_end,
        window_start,
        {%- for column, merge in partial_columns %}
        null{{ ',' if not loop.last }}
        {%- endfor %}
    from (select window_tvf__window_starts.*, explode(array(0, 1)) as is_end from window_tvf__window_starts) as markers
),

-- start marker: merge of its block's slices at or after it (descending run); end marker: merge of its block's
-- slices before it (ascending run, markers sort before slices at the same point)
window_tvf__parts as (
    select
        {% for key in keys %}{{ key }}, {% endfor -%}
        window_start,
        {%- for column, merge in partial_columns %}
        case
            when is_end = 1 then {{ merge }}({{ column }}) over (
                {{ by_block }} order by point_us, is_slice rows between unbounded preceding and current row)
            else {{ merge }}({{ column }}) over (
                {{ by_block }} order by point_us desc, is_slice desc rows between unbounded preceding and current row)
        end as {{ column }}{{ ',' if not loop.last }}
        {%- endfor %}
    from window_tvf__stream
)

select
    {% for key in keys %}{{ key }}, {% endfor -%}
    window_start,
    {{ window_tvf._plus_micros('window_start', size) }} as window_end,
    {%- for column, merge in partial_columns %}
    {{ merge }}({{ column }}) as {{ column }}{{ ',' if not loop.last }}
    {%- endfor %}
from window_tvf__parts
where window_start is not null
group by {% for key in keys %}{{ key }}, {% endfor %}window_start
    {%- endset -%}
    {{ return(window_tvf._sliced_output(keys, plan, source)) }}
{% endmacro %}


{#-
    Hop by copying each slice's partials into the windows that hold it (starts on the slide grid within one size
    before the slice), then one GROUP BY on the window start in microseconds; the start as a time is computed once
    per window, from its earliest slice.
-#}
{% macro _hop_fan_out_sql(relation, spec, keys, plan, slice, offset) %}
    {%- set size = window_tvf._positive_duration(spec.size, 'window_aggregate', 'size') -%}
    {%- set slide = window_tvf._positive_duration(spec.slide, 'window_aggregate', 'slide') -%}
    {%- set source -%}
select
    merged.*,
    {{ window_tvf._plus_micros('window_start', size) }} as window_end
from (
    select
        {% for key in keys %}{{ key }}, {% endfor -%}
        {{ window_tvf._time_at('window_start_us', 'min(slice_start)') }} as window_start,
        {%- for column, partial, merge in window_tvf._partial_columns(plan) %}
        {{ merge }}({{ column }}) as {{ column }}{{ ',' if not loop.last }}
        {%- endfor %}
    from (
        select
            slices.*,
            explode({{ window_tvf._grid_points_between('(slice_us - ' ~ size ~ ')', 'slice_us', slide, offset) }}) as window_start_us
        from ({{ window_tvf._slices_sql(relation, spec.timecol, keys, plan, slice, offset) }}) as slices
    ) as slices_in_windows
    group by {% for key in keys %}{{ key }}, {% endfor %}window_start_us
) as merged
    {%- endset -%}
    {{ return(window_tvf._sliced_output(keys, plan, source)) }}
{% endmacro %}


{% macro _cumulate_aggregate_sql(relation, spec, keys, plan) %}
    {%- set step, size = window_tvf._cumulate_durations(spec.step, spec.size, 'window_aggregate') -%}
    {%- set offset = window_tvf._offset_duration(spec.get('offset'), 'window_aggregate') -%}
    {%- set by_period = 'partition by ' ~ (keys + ['period_us']) | join(', ') -%}
    {%- set source -%}
        select
            ends.*,
            timestampadd(microsecond, period_us - slice_us, slice_start) as window_start,
            timestampadd(microsecond, period_us + step_count * {{ step }}L - slice_us, slice_start) as window_end
        from (
            select
                running.*,
                -- the windows whose last non-empty slice is this one: ends after it, up to the next non-empty slice
                explode(sequence(
                    cast((slice_us - period_us) div {{ step }} + 1 as int),
                    cast((coalesce(next_slice_us, period_us + {{ size }}) - period_us) div {{ step }} as int)
                )) as step_count
            from (
                select
                    {% for key in keys %}{{ key }}, {% endfor -%}
                    slice_start,
                    slice_us,
                    period_us,
                    lead(slice_us) over ({{ by_period }} order by slice_us) as next_slice_us,
                    {%- for column, partial, merge in window_tvf._partial_columns(plan) %}
                    {{ merge }}({{ column }}) over ({{ by_period }} order by slice_us rows between unbounded preceding and current row)
                        as {{ column }}{{ ',' if not loop.last }}
                    {%- endfor %}
                from (
                    select
                        slices.*,
                        slice_us - pmod(slice_us - ({{ offset }}), {{ size }}) as period_us
                    from ({{ window_tvf._slices_sql(relation, spec.timecol, keys, plan, step, offset) }}) as slices
                ) as slices_in_periods
            ) as running
        ) as ends
    {%- endset -%}
    {{ return(window_tvf._sliced_output(keys, plan, source)) }}
{% endmacro %}


{#- Session windows by group: number the sessions in one sort, then aggregate the raw rows per session. -#}
{% macro _session_aggregate_sql(relation, spec, keys, measures) %}
    {%- set gap = window_tvf._positive_duration(spec.gap, 'window_aggregate', 'gap') -%}
    {%- set partition_keys = window_tvf._column_names(spec.get('partition_by'), 'window_aggregate', 'partition_by') -%}
select
    {{ window_tvf._window_and_keys(keys) }}
    {%- for name, call in measures.items() %}
    {{ name }}{{ ',' if not loop.last }}
    {%- endfor %}
from (
    select
        {% for key in keys %}{{ key }}, {% endfor -%}
        min(window_tvf__time) as window_start,
        max(window_tvf__row_end) as window_end,
        {%- for name, call in measures.items() %}
        {{ window_tvf._row_aggregate(call) }} as {{ name }}{{ ',' if not loop.last }}
        {%- endfor %}
    from (
        {{ window_tvf._numbered_sessions(relation, spec.timecol, gap, 'source_rows.*', partition_keys) }}
    ) as numbered
    group by {% for key in partition_keys %}{{ key }}, {% endfor %}window_tvf__session
        {%- for key in keys if key not in partition_keys %}, {{ key }}{% endfor %}
) as sessions
{%- endmacro %}
