{#
    Hopping windows: partial results per slice of gcd(size, slide), merged into the windows that cover them, in one
    of three ways (the shuffle, 'partials' or 'rows', is chosen in shuffle.sql):
    - slice copies ('partials', a window spans at most 32 slices): the rows were aggregated partially before the
      shuffle, so slices are few; each is copied into the windows that cover it, then grouped once per window;
    - following slices ('rows', at most 32 slices and 160 lead values read): the rows are shuffled once, by key; each
      window is made once, at its first non-empty slice (its start lies after the key's previous non-empty slice and
      at most one size before this one); the key's next slices are read with lead() in the one pass that sorts its
      slices, and each window merges this slice with those of its next slices that start before the window ends;
    - block merges (larger overlaps, e.g. 1 day / 1 minute: 1440 windows per slice): windows are listed once, at
      their first non-empty slice, and merged with the van Herk/Gil-Werman block split: blocks of one window size,
      so a window covers the tail of one block and the head of the next; running merges over each block (one
      ascending, one descending) give both parts of every window in linear time, for min/max as well as sums.
#}
{% macro _hop_aggregate_sql(relation, spec, keys, plan, axis, key_count) %}
    {%- set slide_span, size_span = window_tvf._hop_spans(spec.slide, spec.size, 'window_aggregate') -%}
    {%- set grid = window_tvf._grid(slide_span, spec.get('offset'), spec.get('week_start'), 'window_aggregate') -%}
    {%- set size = size_span.months or size_span.micros -%}
    {%- set ns = namespace(a=grid.period, b=size) -%}
    {%- for _ in range(64) if ns.b != 0 -%}{%- set ns.a, ns.b = ns.b, ns.a % ns.b -%}{%- endfor -%}
    {%- set slice_grid = dict(grid, period=ns.a) -%}
    {%- set shuffle = window_tvf._slices_shuffle(relation, spec.timecol, keys, keys, axis, slice_grid, key_count) -%}
    {%- set slices = window_tvf._slices_sql(relation, spec.timecol, keys, plan, axis, slice_grid,
        shuffle_by=keys if shuffle == 'rows' else []) -%}
    {#-
        The lead path reads (reach - 1) next slices per partial column and merges them once per window: its SQL and
        its work grow with reach x columns. Up to 160 lead values (1 day / 1 hour with 4 aggregates: 115) it is the
        faster path for rows shuffled by key on every key distribution measured (docs/benchmarks/window_aggregation.md); beyond, block
        merges, and for decimal sums that its + would round (types.sql, _flat_sums_exact). The hidden type
        templates of types.sql are pruned by Spark and do not count. Slice copies grow with reach x slices, which
        partial aggregation keeps few.
    -#}
    {%- set reach = size // ns.a -%}
    {%- set lead_values = (reach - 1) * (window_tvf._partial_columns(plan | rejectattr('template', 'defined')) | length + 1) -%}
    {%- if shuffle == 'partials' and reach <= 32 -%}
        {%- set merged = window_tvf._hop_slice_copies_sql(slices, keys, plan, axis, grid, size) -%}
    {%- elif reach <= 32 and lead_values <= 160 and window_tvf._flat_sums_exact(plan, reach - 1) -%}
        {%- set plan = window_tvf._flat_sum_guard(plan, reach - 1) -%}
        {%- set merged = window_tvf._hop_following_slices_sql(slices, keys, plan, axis, grid, size, reach) -%}
    {%- else -%}
        {%- set merged = window_tvf._hop_block_merge_sql(slices, keys, plan, axis, grid, size) -%}
    {%- endif -%}
    {%- if window_tvf._distinct_measures(plan) -%}
        {%- set merged = window_tvf._hop_distinct_counts(merged, relation, spec.timecol, keys, plan, axis, slice_grid,
            grid, size) -%}
    {%- endif -%}
    {%- set source -%}
        select
            merged.*,
            {{ window_tvf._grid_wall(grid, 'window_start_position') }} as window_tvf__start,
            {{ window_tvf._grid_wall(grid, 'window_start_position + ' ~ size) }} as window_tvf__end
        from ({{ merged }}) as merged
    {%- endset -%}
    {{ return(window_tvf._sliced_output(keys, plan, source, axis, ['window_start_position'])) }}
{% endmacro %}


{#-
    Each window at its first non-empty slice, merged from that slice and those of the key's next `reach - 1` slices
    that start before the window ends (a window spans at most `reach` slices): one lead() per next slice and partial
    column, and one flat merge per column whose size grows with the reach, not its square.
-#}
{% macro _hop_following_slices_sql(slices, keys, plan, axis, grid, size, reach) %}
    {%- set by_key = window_tvf._slice_partition(keys, 'slice_start') ~ ' ' -%}
    {%- set partials = window_tvf._partial_columns(plan) -%}
    select
        {% for key in keys %}{{ key }}, {% endfor -%}
        window_start_position
        {{- ', window_tvf__like' if axis.type is none }},
        {%- for column, partial, merge in partials %}
        {%- set values = [column] %}
        {%- for next in range(1, reach) %}
        {%- do values.append('if(window_tvf__next_' ~ next ~ '_start < window_start_position + ' ~ size
            ~ ', window_tvf__next_' ~ next ~ '_' ~ column ~ ', null)') %}
        {%- endfor %}
        {{ window_tvf._merge_values(merge, values) }} as {{ column }}{{ ',' if not loop.last }}
        {%- endfor %}
    from (
        select
            neighbours.*,
            explode({{ window_tvf._grid_points_between(
                'greatest(coalesce(window_tvf__previous, slice_start - ' ~ size ~ '), slice_start - ' ~ size ~ ')',
                'slice_start', grid.period, grid.offset) }}) as window_start_position
        from (
            select
                slices.*,
                lag(slice_start) over window_tvf__by_key as window_tvf__previous
                {%- for next in range(1, reach) %},
                lead(slice_start, {{ next }}) over window_tvf__by_key as window_tvf__next_{{ next }}_start
                {%- for column, partial, merge in partials %},
                lead({{ column }}, {{ next }}) over window_tvf__by_key as window_tvf__next_{{ next }}_{{ column }}
                {%- endfor %}
                {%- endfor %}
            from ({{ slices }}) as slices
            window window_tvf__by_key as ({{ by_key }}order by slice_start)
        ) as neighbours
    ) as windows
{%- endmacro %}


{#-
    Each slice copied into the windows that cover it (those starting after slice_start - size, up to slice_start),
    then one GROUP BY per window: with few keys there are few slices, so their copies are fewer than the rows.
-#}
{% macro _hop_slice_copies_sql(slices, keys, plan, axis, grid, size) %}
    {%- set copies -%}
        (
            select
                slices.*,
                explode({{ window_tvf._grid_points_between('slice_start - ' ~ size, 'slice_start', grid.period, grid.offset) }})
                    as window_start_position
            from ({{ slices }}) as slices
        ) as copies
    {%- endset -%}
    {{ return(window_tvf._hop_merge_by_window(copies, keys, plan, axis)) }}
{% endmacro %}

{#- Partial rows of `source` (a FROM item with window_start_position) merged into one row per key and window. -#}
{% macro _hop_merge_by_window(source, keys, plan, axis, condition=none) %}
    select
        {% for key in keys %}{{ key }}, {% endfor -%}
        window_start_position
        {{- window_tvf._merged_like(axis) }},
        {%- for column, partial, merge in window_tvf._partial_columns(plan) %}
        {{ window_tvf._merge_call(merge, column) }} as {{ column }}{{ ',' if not loop.last }}
        {%- endfor %}
    from {{ source }}
    {%- if condition %}
    where {{ condition }}
    {%- endif %}
    group by {% for key in keys %}{{ key }}, {% endfor %}window_start_position
{%- endmacro %}


{#- Block merges over fixed-length slices (positions in wall-clock microseconds), as described above. -#}
{% macro _hop_block_merge_sql(slices, keys, plan, axis, grid, size) %}
    {%- set slide, offset = grid.period, grid.offset -%}
    {%- set by_key = window_tvf._slice_partition(keys, 'slice_start') -%}
    {%- set by_block = 'partition by ' ~ (keys + ['block_index']) | join(', ') -%}
    {%- set like = ', window_tvf__like' if axis.type is none else '' -%}
with window_tvf__slices as (
    {{ slices }}
),

-- each window once, at its first non-empty slice: starts on the slide grid after both the previous non-empty
-- slice of the key and one window size back, up to this slice
window_tvf__window_starts as (
    select
        {% for key in keys %}{{ key }}, {% endfor -%}
        explode({{ window_tvf._grid_points_between('after_position', 'slice_start', slide, offset) }}) as window_start_position
        {{- like }}
    from (
        select
            window_tvf__slices.*,
            greatest(coalesce(lag(slice_start) over ({{ by_key }} order by slice_start), slice_start - {{ size }}),
                slice_start - {{ size }}) as after_position
        from window_tvf__slices
    ) as first_slices
),

-- slices and, per window, a start marker (in the start's block) and an end marker (in the next block)
window_tvf__stream as (
    select
        {% for key in keys %}{{ key }}, {% endfor -%}
        slice_start as point,
        {{ window_tvf._hop_block_index('slice_start', size, offset) }} as block_index,
        1 as is_slice,
        0 as is_end,
        cast(null as bigint) as window_start_position
        {{- like }},
        {%- for column, partial, merge in window_tvf._partial_columns(plan) %}
        {{ column }}{{ ',' if not loop.last }}
        {%- endfor %}
    from window_tvf__slices
    union all
    select
        {% for key in keys %}{{ key }}, {% endfor -%}
        window_start_position + {{ size }}L * is_end,
        {{ window_tvf._hop_block_index('window_start_position', size, offset) }} + is_end,
        0,
        is_end,
        window_start_position
        {{- like }},
        {%- for column, partial, merge in window_tvf._partial_columns(plan) %}
        null{{ ',' if not loop.last }}
        {%- endfor %}
    from (select window_tvf__window_starts.*, explode(array(0, 1)) as is_end from window_tvf__window_starts) as markers
),

-- start marker: merge of its block's slices at or after it (descending run); end marker: merge of its block's
-- slices before it (ascending run, markers sort before slices at the same point)
window_tvf__parts as (
    select
        {% for key in keys %}{{ key }}, {% endfor -%}
        window_start_position
        {{- like }},
        {%- for column, partial, merge in window_tvf._partial_columns(plan) %}
        case
            when is_end = 1 then {{ window_tvf._merge_call(merge, column) }} over (
                {{ by_block }} order by point, is_slice rows between unbounded preceding and current row)
            else {{ window_tvf._merge_call(merge, column) }} over (
                {{ by_block }} order by point desc, is_slice desc rows between unbounded preceding and current row)
        end as {{ column }}{{ ',' if not loop.last }}
        {%- endfor %}
    from window_tvf__stream
)

{{ window_tvf._hop_merge_by_window('window_tvf__parts', keys, plan, axis, 'window_start_position is not null') }}
{%- endmacro %}

{#- Floor division on the grid offset + k * period: which block of one window size `position` falls in. -#}
{% macro _hop_block_index(position, period, offset) -%}
    ({{ position }} - ({{ offset }}) - pmod({{ position }} - ({{ offset }}), {{ period }})) div {{ period }}
{%- endmacro %}
