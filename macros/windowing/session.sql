{#
    SESSION(TABLE relation PARTITION BY keys, DESCRIPTOR(timecol), gap): within each partition, rows whose times
    are at most `gap` apart chain into one session (a row exactly `gap` after the previous one joins it, as Flink
    merges windows that touch). window_start is the session's first time, window_end its last time plus gap.
    Flink runs SESSION in streaming mode only; this is the same result in batch.
#}
{% macro session(relation, timecol, gap, partition_by=none) %}
    {{ return(adapter.dispatch('session', 'window_tvf')(relation, timecol, gap, partition_by)) }}
{% endmacro %}

{% macro default__session(relation, timecol, gap, partition_by=none) %}
    {%- set relation = window_tvf._relation(relation, 'session') -%}
    {%- set timecol = window_tvf._column_name(timecol, 'session', 'timecol') -%}
    {%- set gap_us = window_tvf._positive_duration(gap, 'session', 'gap') -%}
    {%- set keys = window_tvf._column_names(partition_by, 'session', 'partition_by') -%}
    {%- do window_tvf._check_columns(relation, 'session', timecol, {'partition_by': keys}) -%}
    {#- The input row travels as one struct column, so helper columns never mix with (or shadow) the user's. -#}
    {%- set source_keys, row_keys = [], [] -%}
    {%- for key in keys -%}
        {%- do source_keys.append('source_rows.' ~ key) -%}
        {%- do row_keys.append('session_row.' ~ key) -%}
    {%- endfor -%}
    {%- set session_partition = 'partition by ' ~ (row_keys + ['session_index']) | join(', ') -%}
    {%- set previous_time = 'lag(source_rows.' ~ timecol ~ ') over ('
        ~ ('partition by ' ~ source_keys | join(', ') ~ ' ' if source_keys else '')
        ~ 'order by source_rows.' ~ timecol ~ ')' -%}
select
    sessions.session_row.*,
    sessions.window_start,
    sessions.window_end,
    {{ window_tvf._plus_micros('sessions.window_end', -1000) }} as window_time
from (
    select
        session_row,
        min(session_time) over ({{ session_partition }}) as window_start,
        {{ window_tvf._plus_micros('max(session_time) over (' ~ session_partition ~ ')', gap_us) }}
            as window_end
    from (
        select
            session_row,
            session_time,
            -- sessions numbered in time order within the partition: a running count of session starts
            sum(starts_session) over (
                {{ 'partition by ' ~ row_keys | join(', ') if row_keys }}
                order by session_time
                rows between unbounded preceding and current row
            ) as session_index
        from (
            select
                struct(source_rows.*) as session_row,
                source_rows.{{ timecol }} as session_time,
                -- a row starts a session unless it is at most one gap after the previous row
                case
                    when {{ window_tvf._plus_micros(previous_time, gap_us) }} >= source_rows.{{ timecol }} then 0
                    else 1
                end as starts_session
            from {{ relation }} as source_rows
            where source_rows.{{ timecol }} is not null
        ) as marked
    ) as indexed
) as sessions
{%- endmacro %}
