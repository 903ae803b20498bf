{#
    SESSION(TABLE relation PARTITION BY keys, DESCRIPTOR(timecol), gap): within each partition every row opens a
    window [time, time + gap); windows that overlap or touch merge, as Flink merges session windows. So rows whose
    times are at most `gap` apart chain into one session (a row exactly `gap` after the previous one joins it).
    window_start is the session's first time, window_end the largest time + gap in it.
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
    {{ return(window_tvf._session_sql(relation, timecol, gap_us, keys)) }}
{% endmacro %}


{#
    Session windows with a gap computed per row (Flink's SessionWindowTimeGapExtractor): `gap_ms` is a SQL
    expression over the row's columns giving its gap in milliseconds, e.g.
    "case when item = 'A' then 5 * 60000 else 10 * 60000 end". Each row's window is [time, time + its gap); windows
    that overlap or touch merge. A gap that is NULL or not positive fails the query (Flink rejects it too).
#}
{% macro dynamic_session(relation, timecol, gap_ms, partition_by=none) %}
    {{ return(adapter.dispatch('dynamic_session', 'window_tvf')(relation, timecol, gap_ms, partition_by)) }}
{% endmacro %}

{% macro default__dynamic_session(relation, timecol, gap_ms, partition_by=none) %}
    {%- set relation = window_tvf._relation(relation, 'dynamic_session') -%}
    {%- set timecol = window_tvf._column_name(timecol, 'dynamic_session', 'timecol') -%}
    {%- set keys = window_tvf._column_names(partition_by, 'dynamic_session', 'partition_by') -%}
    {%- if gap_ms is not string or not (gap_ms | trim) or ';' in gap_ms -%}
        {{ window_tvf._argument_error('dynamic_session', 'gap_ms', gap_ms,
            "expected a SQL expression over the row's columns giving the gap in milliseconds, e.g. "
            ~ "'case when item = ''A'' then 300000 else 600000 end'") }}
    {%- endif -%}
    {%- do window_tvf._check_columns(relation, 'dynamic_session', timecol, {'partition_by': keys}) -%}
    {%- set gap_us -%}
        case
            when ({{ gap_ms }}) > 0 then cast(({{ gap_ms }}) * 1000 as bigint)
            else raise_error(concat('window_tvf.dynamic_session: gap_ms must be positive, got ', coalesce(cast(({{ gap_ms }}) as string), 'NULL')))
        end
    {%- endset -%}
    {{ return(window_tvf._session_sql(relation, timecol, gap_us, keys)) }}
{% endmacro %}


{#-
    The input row travels as one struct column, so helper columns never mix with (or shadow) the user's.
    A row starts a new session when no earlier row's window reaches it: its time is after the running maximum of
    the earlier rows' window ends (with a static gap that is the previous row's time + gap).
-#}
{% macro _session_sql(relation, timecol, gap_us, keys) %}
    {%- set source_keys, row_keys = [], [] -%}
    {%- for key in keys -%}
        {%- do source_keys.append('source_rows.' ~ key) -%}
        {%- do row_keys.append('session_row.' ~ key) -%}
    {%- endfor -%}
    {%- set row_partition = ('partition by ' ~ row_keys | join(', ') ~ ' ') if row_keys else '' -%}
    {%- set session_partition = 'partition by ' ~ (row_keys + ['session_index']) | join(', ') -%}
select
    sessions.session_row.*,
    sessions.window_start,
    sessions.window_end,
    {{ window_tvf._plus_micros('sessions.window_end', -1000) }} as window_time
from (
    select
        session_row,
        min(session_time) over ({{ session_partition }}) as window_start,
        max(row_window_end) over ({{ session_partition }}) as window_end
    from (
        select
            session_row,
            session_time,
            row_window_end,
            -- sessions numbered in time order within the partition: a running count of session starts
            sum(starts_session) over (
                {{ row_partition }}order by session_time
                rows between unbounded preceding and current row
            ) as session_index
        from (
            select
                session_row,
                session_time,
                row_window_end,
                case
                    when max(row_window_end) over (
                        {{ row_partition }}order by session_time
                        rows between unbounded preceding and 1 preceding
                    ) >= session_time then 0
                    else 1
                end as starts_session
            from (
                select
                    struct(source_rows.*) as session_row,
                    source_rows.{{ timecol }} as session_time,
                    {{ window_tvf._plus_micros('source_rows.' ~ timecol, gap_us) }} as row_window_end
                from {{ relation }} as source_rows
                where source_rows.{{ timecol }} is not null
            ) as rows_with_windows
        ) as marked
    ) as indexed
) as sessions
{%- endmacro %}
