{#
    Flink's built-in evictors, applied to an already windowed relation (the output of tumble, hop, cumulate, session
    or count_window) before the user's aggregate, as Flink's evictBefore does. Each returns a SELECT of the rows it
    keeps, with the input's columns unchanged. `window_by` names the columns that identify one window pane
    (default window_start, window_end; add the keys, or use window_index and the keys for count windows).
    The pane's buffer order is time order, ties broken by the whole row (Flink: arrival order, not guaranteed).
    Rows whose time is NULL are in no pane and are left out.
#}

{#- CountEvictor(max_count): keeps the last max_count elements of each pane in buffer order. -#}
{% macro evict_count(relation, timecol, max_count, window_by=none) %}
    {{ return(adapter.dispatch('evict_count', 'window_tvf')(relation, timecol, max_count, window_by)) }}
{% endmacro %}

{% macro default__evict_count(relation, timecol, max_count, window_by=none) %}
    {%- set relation = window_tvf._relation(relation, 'evict_count') -%}
    {%- set timecol = window_tvf._column_name(timecol, 'evict_count', 'timecol') -%}
    {%- set max_count = window_tvf._positive_integer(max_count, 'evict_count', 'max_count') -%}
    {%- set panes = window_tvf._window_by(window_by, 'evict_count') -%}
    {%- do window_tvf._check_columns(relation, 'evict_count', timecol, {'window_by': panes}, window_columns=[]) -%}
select
    kept.pane_row.*
from (
    select
        struct(source_rows.*) as pane_row,
        -- 1 for the last element of the pane's buffer, 2 for the one before it, ...: a running count, a bigint
        -- (row_number() is an int, which would wrap past 2^31 - 1 rows in a pane and keep the wrapped rows)
        count(*) over (
            {{ window_tvf._partition_clause(panes) }}
            order by {{ window_tvf._buffer_order(timecol, ' desc') }}
            rows between unbounded preceding and current row
        ) as position_from_last
    from {{ relation }} as source_rows
    where source_rows.{{ timecol }} is not null
) as kept
where kept.position_from_last <= {{ max_count }}
{%- endmacro %}


{#- TimeEvictor(keep): keeps the elements of each pane whose time is at least the pane's latest time minus keep. -#}
{% macro evict_time(relation, timecol, keep, window_by=none) %}
    {{ return(adapter.dispatch('evict_time', 'window_tvf')(relation, timecol, keep, window_by)) }}
{% endmacro %}

{% macro default__evict_time(relation, timecol, keep, window_by=none) %}
    {%- set relation = window_tvf._relation(relation, 'evict_time') -%}
    {%- set timecol = window_tvf._column_name(timecol, 'evict_time', 'timecol') -%}
    {%- set keep_us = window_tvf._positive_duration(keep, 'evict_time', 'keep') -%}
    {%- set panes = window_tvf._window_by(window_by, 'evict_time') -%}
    {%- do window_tvf._check_columns(relation, 'evict_time', timecol, {'window_by': panes}, window_columns=[]) -%}
select
    kept.pane_row.*
from (
    select
        struct(source_rows.*) as pane_row,
        source_rows.{{ timecol }} as pane_row_time,
        max(source_rows.{{ timecol }}) over ({{ window_tvf._partition_clause(panes) }}) as pane_max_time
    from {{ relation }} as source_rows
    where source_rows.{{ timecol }} is not null
) as kept
-- Flink removes the elements with a timestamp smaller than max_ts - keep; an element exactly at it stays
where kept.pane_row_time >= {{ window_tvf._plus_micros('kept.pane_max_time', -keep_us) }}
{%- endmacro %}


{#-
    DeltaEvictor(threshold, delta): `delta` is a SQL expression over the row's columns and `last_element`, a struct
    holding the pane's last element (greatest time, ties broken by the whole row), e.g.
    'abs(last_element.price - price)'. Keeps the rows whose delta is below threshold (Flink removes delta >=
    threshold); a NULL delta is not below it, so that row is removed.
-#}
{% macro evict_delta(relation, timecol, delta, threshold, window_by=none) %}
    {{ return(adapter.dispatch('evict_delta', 'window_tvf')(relation, timecol, delta, threshold, window_by)) }}
{% endmacro %}

{% macro default__evict_delta(relation, timecol, delta, threshold, window_by=none) %}
    {%- set relation = window_tvf._relation(relation, 'evict_delta') -%}
    {%- set timecol = window_tvf._column_name(timecol, 'evict_delta', 'timecol') -%}
    {%- if delta is not string or not (delta | trim) or ';' in delta -%}
        {{ window_tvf._argument_error('evict_delta', 'delta', delta,
            "expected a SQL expression over the row's columns and last_element (the pane's last element), "
            ~ "such as 'abs(last_element.price - price)', without ';'") }}
    {%- endif -%}
    {%- set threshold = window_tvf._number_argument(threshold, 'evict_delta', 'threshold') -%}
    {%- set panes = window_tvf._window_by(window_by, 'evict_delta') -%}
    {%- do window_tvf._check_columns(relation, 'evict_delta', timecol, {'window_by': panes}, window_columns=[]) -%}
    {#- The delta expression sees the input's columns by name, next to two helper columns: those names are taken. -#}
    {%- set columns = window_tvf._known_columns(relation) -%}
    {%- for column in ('last_element', 'window_tvf_pane_row') if column in columns -%}
        {{ window_tvf._argument_error('evict_delta', 'relation', relation | string,
            "it has a column named " ~ column ~ ", a name the delta expression reserves (last_element is the pane's "
            ~ "last element); rename it first") }}
    {%- endfor -%}
select
    deltas.window_tvf_pane_row.*
from (
    select
        pane_rows.window_tvf_pane_row,
        (
            {{ delta | trim }}
        ) as pane_row_delta
    from (
        select
            source_rows.*,
            struct(source_rows.*) as window_tvf_pane_row,
            -- the pane's last element in buffer order: time, ties broken by the whole row
            last_value(struct(source_rows.*)) over (
                {{ window_tvf._partition_clause(panes) }}
                order by {{ window_tvf._buffer_order(timecol) }}
                rows between unbounded preceding and unbounded following
            ) as last_element
        from {{ relation }} as source_rows
        where source_rows.{{ timecol }} is not null
    ) as pane_rows
) as deltas
-- Flink removes the elements whose delta is >= threshold; a NULL delta is not below the threshold either
where deltas.pane_row_delta < {{ threshold }}
{%- endmacro %}
