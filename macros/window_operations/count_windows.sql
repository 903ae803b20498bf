{#
    Flink DataStream count windows, `keyBy(partition_by).countWindow(size[, slide])`, in batch.

    Flink builds them from GlobalWindows and a CountTrigger: countWindow(size) fires and purges every `size`
    elements; countWindow(size, slide) fires every `slide` elements and its CountEvictor(size) keeps the last `size`
    elements of the buffer for the function. Here, within each partition the rows are numbered 1..n in buffer order
    (time, ties broken by the whole row) and
      - tumbling (no slide): firing k holds positions ((k-1)*size, k*size];
      - sliding: firing k comes after position k*slide and holds positions (k*slide - size, k*slide] within [1, n],
        so the firings before the first `size` elements hold fewer rows, as in Flink, and a row is repeated once
        per firing that holds it (none when slide > size leaves it in a gap).
    Rows after the last firing are never emitted, as in Flink, unless emit_incomplete=true adds one final firing at
    the end of the partition: tumbling, the partial last window (K*size, n]; sliding, the last `size` rows
    (n - size, n], only when n is not already a firing point.
    Output: every input column, then window_index (the firing number k, from 1 in each partition) and
    window_row_count (the rows in that firing), both bigint. Rows whose time is NULL are left out.
#}
{% macro count_window(relation, timecol, size, slide=none, partition_by=none, emit_incomplete=false) %}
    {%- do window_tvf._not_in_microbatch('count_window', "a count window numbers every row of its key from the first "
        ~ "one, so a batch cannot build it from its own rows; build it as a table or an incremental model") -%}
    {{ return(adapter.dispatch('count_window', 'window_tvf')(relation, timecol, size, slide, partition_by, emit_incomplete)) }}
{% endmacro %}

{% macro default__count_window(relation, timecol, size, slide=none, partition_by=none, emit_incomplete=false) %}
    {%- set relation = window_tvf._relation(relation, 'count_window') -%}
    {%- set timecol = window_tvf._column_name(timecol, 'count_window', 'timecol') -%}
    {%- set size = window_tvf._positive_integer(size, 'count_window', 'size') -%}
    {%- set slide = none if slide is none else window_tvf._positive_integer(slide, 'count_window', 'slide') -%}
    {%- set keys = window_tvf._column_names(partition_by, 'count_window', 'partition_by') -%}
    {%- set emit_incomplete = window_tvf._boolean_argument(emit_incomplete, 'count_window', 'emit_incomplete') -%}
    {%- do window_tvf._check_columns(relation, 'count_window', timecol, {'partition_by': keys},
        window_columns=['window_index', 'window_row_count']) -%}
    {%- set partition = window_tvf._partition_clause(keys) -%}
    {#- Each row with its position in its partition's buffer (1..n) and the partition's row count n. -#}
    {%- set positioned -%}
            select
                struct(source_rows.*) as window_row,
                -- the buffer order: time, ties broken by the whole row; a running count is a bigint, where
                -- row_number() is an int that would wrap past 2^31 - 1 rows in a partition
                count(*) over ({{ partition }} order by {{ window_tvf._buffer_order(timecol) }}
                    rows between unbounded preceding and current row) as row_position,
                count(*) over ({{ partition }}) as partition_rows
            from {{ relation }} as source_rows
            where source_rows.{{ timecol }} is not null
    {%- endset -%}
select
    fired.window_row.*,
    fired.window_index,
    fired.window_row_count
from (
    {%- if slide is none %}
    {{ window_tvf._tumbling_count_firings(positioned, size, emit_incomplete) }}
    {%- else %}
    {{ window_tvf._sliding_count_firings(positioned, size, slide, emit_incomplete) }}
    {%- endif %}
) as fired
{%- endmacro %}


{#-
    Tumbling count windows over `positioned` (window_row, row_position, partition_rows): window_row, window_index and
    window_row_count of each row's firing.
-#}
{% macro _tumbling_count_firings(positioned, size, emit_incomplete) -%}
    -- tumbling: position p is in firing (p - 1) div size + 1, which fires once it holds size rows
    select
        numbered.window_row,
        numbered.window_index,
        least({{ size }}, numbered.partition_rows - (numbered.window_index - 1) * {{ size }}) as window_row_count
    from (
        select
            positioned.window_row,
            positioned.partition_rows,
            (positioned.row_position - 1) div {{ size }} + 1 as window_index
        from (
            {{ positioned }}
        ) as positioned
    ) as numbered
    {%- if not emit_incomplete %}
    -- a firing that never reached size rows never fires
    where numbered.window_index * {{ size }} <= numbered.partition_rows
    {%- endif %}
{%- endmacro %}


{#- Sliding count windows over `positioned`: one output row per firing that holds a row. -#}
{% macro _sliding_count_firings(positioned, size, slide, emit_incomplete) -%}
    -- sliding: firing k comes after position k * slide and holds positions (k * slide - size, k * slide]
    select
        numbered.window_row,
        numbered.window_index,
        case
            when numbered.window_index <= numbered.partition_rows div {{ slide }}
                then least(numbered.window_index * {{ slide }}, {{ size }})
            else least(numbered.partition_rows, {{ size }})
        end as window_row_count
    from (
        select
            ranged.window_row,
            ranged.partition_rows,
            -- one output row per firing that holds this row
            explode(concat(
                case
                    when ranged.first_firing <= ranged.last_firing then sequence(ranged.first_firing, ranged.last_firing)
                    else cast(array() as array<bigint>)
                end
                {%- if emit_incomplete %},
                -- the final firing at the end of the input: the last size rows, unless n is a firing point already
                case
                    when ranged.partition_rows % {{ slide }} != 0
                        and ranged.row_position > ranged.partition_rows - {{ size }}
                        then array(ranged.partition_rows div {{ slide }} + 1)
                    else cast(array() as array<bigint>)
                end
                {%- endif %}
            )) as window_index
        from (
            -- position p is in firings ceil(p / slide) .. floor((p + size - 1) / slide), up to the last one, n div slide;
            -- written so that no sum passes p + n (p + slide or p + size could pass bigint's maximum and wrap)
            select
                positioned.window_row,
                positioned.row_position,
                positioned.partition_rows,
                (positioned.row_position - 1) div {{ slide }} + 1 as first_firing,
                least(
                    positioned.partition_rows div {{ slide }},
                    (positioned.row_position - 1 + least({{ size }}, positioned.partition_rows)) div {{ slide }}
                ) as last_firing
            from (
            {{ positioned }}
            ) as positioned
        ) as ranged
    ) as numbered
{%- endmacro %}
