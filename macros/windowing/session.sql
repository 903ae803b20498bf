{#
    SESSION(TABLE relation PARTITION BY keys, DESCRIPTOR(timecol), gap): within each partition every row opens a
    window [time, time + gap); windows that overlap or touch merge, as Flink merges session windows. So rows whose
    times are at most `gap` apart chain into one session (a row exactly `gap` after the previous one joins it).
    window_start is the session's first time, window_end the largest time + gap in it.
    Flink runs SESSION in streaming mode only; this is the same result in batch.
#}
{% macro session(relation, timecol, gap, partition_by=none, time_zone=none) %}
    {%- set scope = window_tvf._batch_scope('session', [[relation, {'tvf': 'session', 'timecol': timecol, 'gap': gap,
        'partition_by': partition_by, 'time_zone': time_zone}]]) -%}
    {{ return(window_tvf._batch_windows(scope, adapter.dispatch('session', 'window_tvf')(
        scope.relations[0], timecol, gap, partition_by, time_zone), window_tvf._known_columns(relation))) }}
{% endmacro %}

{% macro default__session(relation, timecol, gap, partition_by=none, time_zone=none, window_prefix='') %}
    {%- set relation = window_tvf._relation(relation, 'session') -%}
    {%- set timecol = window_tvf._column_name(timecol, 'session', 'timecol') -%}
    {%- set gap_us = window_tvf._positive_duration(gap, 'session', 'gap') -%}
    {%- set keys = window_tvf._column_names(partition_by, 'session', 'partition_by') -%}
    {%- do window_tvf._check_columns(relation, 'session', timecol, {'partition_by': keys},
        window_columns=[] if window_prefix else none) -%}
    {%- set axis = window_tvf._time_axis(relation, timecol, time_zone, 'session') -%}
    {{ return(window_tvf._session_sql(relation, timecol, gap_us, keys, axis, window_prefix)) }}
{% endmacro %}


{#
    Session windows with a gap computed per row (Flink's SessionWindowTimeGapExtractor): `gap_ms` is a SQL
    expression over the row's columns giving its gap in milliseconds, e.g.
    "case when item = 'A' then 5 * 60000 else 10 * 60000 end". Each row's window is [time, time + its gap); windows
    that overlap or touch merge. A gap that is NULL or not positive fails the query (Flink rejects it too).
#}
{% macro dynamic_session(relation, timecol, gap_ms, partition_by=none, time_zone=none) %}
    {%- do window_tvf._not_in_microbatch('dynamic_session', "a gap computed per row leaves no bound on how far back "
        ~ "a batch's sessions reach; use a session window with a fixed gap, or a table or incremental model") -%}
    {{ return(adapter.dispatch('dynamic_session', 'window_tvf')(relation, timecol, gap_ms, partition_by, time_zone)) }}
{% endmacro %}

{% macro default__dynamic_session(relation, timecol, gap_ms, partition_by=none, time_zone=none, window_prefix='') %}
    {%- set relation = window_tvf._relation(relation, 'dynamic_session') -%}
    {%- set timecol = window_tvf._column_name(timecol, 'dynamic_session', 'timecol') -%}
    {%- set keys = window_tvf._column_names(partition_by, 'dynamic_session', 'partition_by') -%}
    {%- if gap_ms is not string or not (gap_ms | trim) or ';' in gap_ms -%}
        {{ window_tvf._argument_error('dynamic_session', 'gap_ms', gap_ms,
            "expected a SQL expression over the row's columns giving the gap in milliseconds, e.g. "
            ~ "'case when item = ''A'' then 300000 else 600000 end'") }}
    {%- endif -%}
    {%- do window_tvf._check_columns(relation, 'dynamic_session', timecol, {'partition_by': keys},
        window_columns=[] if window_prefix else none) -%}
    {%- set axis = window_tvf._time_axis(relation, timecol, time_zone, 'dynamic_session') -%}
    {%- set gap_us -%}
        case
            when ({{ gap_ms }}) > 0 then cast(({{ gap_ms }}) * 1000 as bigint)
            else raise_error(concat('window_tvf.dynamic_session: gap_ms must be positive, got ', coalesce(cast(({{ gap_ms }}) as string), 'NULL')))
        end
    {%- endset -%}
    {{ return(window_tvf._session_sql(relation, timecol, gap_us, keys, axis, window_prefix)) }}
{% endmacro %}


{#-
    The input row travels as one struct column, so the helper columns never mix with (or shadow) the user's.
    `window_prefix`: see _window_columns.
-#}
{% macro _session_sql(relation, timecol, gap_us, keys, axis, window_prefix='') %}
    {%- set row_keys = [] -%}
    {%- for key in keys -%}{%- do row_keys.append('session_row.' ~ key) -%}{%- endfor -%}
    {%- set session_partition = 'partition by ' ~ (row_keys + ['window_tvf__session']) | join(', ') -%}
select
    sessions.session_row.*,
    {{ window_tvf._window_columns(axis, 'sessions.window_tvf__start', 'sessions.window_tvf__end',
        'sessions.session_row.' ~ timecol, window_prefix) }}
from (
    select
        session_row,
        min(window_tvf__time) over ({{ session_partition }}) as window_tvf__start,
        max(window_tvf__row_end) over ({{ session_partition }}) as window_tvf__end
    from (
        {{ window_tvf._numbered_sessions(relation, timecol, gap_us, 'struct(source_rows.*) as session_row', row_keys, axis) }}
    ) as numbered
) as sessions
{%- endmacro %}


{#-
    The rows of `relation` with a time, each opening the window [time, time + gap) on the axis' wall clock (so the
    gap is wall-clock time, as Flink measures it), numbered by session within `partition` (expressions over the
    `carried` columns). A row starts a new session when no earlier row's window reaches it: its time is after the
    running maximum of the earlier rows' window ends (with a static gap, the previous row's time + gap). Columns: the
    carried ones, window_tvf__time, window_tvf__gap and window_tvf__row_end (wall-clock microseconds), window_tvf__starts and
    window_tvf__session (the running count of session starts). Shared by the session TVFs and the session path of
    window_aggregate.
-#}
{% macro _numbered_sessions(relation, timecol, gap_us, carried, partition, axis) %}
    {%- set time_expr = 'source_rows.' ~ timecol -%}
    {%- set timed -%}
        select
            walled.*,
            walled.window_tvf__time + walled.window_tvf__gap as window_tvf__row_end
        from (
            select
                {{ carried }},
                {{ window_tvf._wall_micros(axis, time_expr) }} as window_tvf__time,
                {{ gap_us }} as window_tvf__gap
            from {{ relation }} as source_rows
            where {{ time_expr }} is not null
        ) as walled
    {%- endset -%}
    {{ return(window_tvf._session_numbers(timed, partition)) }}
{%- endmacro %}

{#-
    `spans` (rows with window_tvf__time and window_tvf__row_end: each covers [time, row_end]) numbered by session
    within `partition`: a row starts a session when no earlier row (by time) of its partition reaches its time.
    Adds window_tvf__starts and window_tvf__session (the running count of session starts).
-#}
{% macro _session_numbers(spans, partition) %}
    {%- set by_partition = ('partition by ' ~ partition | join(', ') ~ ' ') if partition else '' -%}
select
    marked.*,
    sum(window_tvf__starts) over ({{ by_partition }}order by window_tvf__time rows between unbounded preceding and current row)
        as window_tvf__session
from (
    select
        spans.*,
        case
            when max(window_tvf__row_end) over ({{ by_partition }}order by window_tvf__time
                rows between unbounded preceding and 1 preceding) >= window_tvf__time then 0
            else 1
        end as window_tvf__starts
    from (
        {{ spans }}
    ) as spans
) as marked
{%- endmacro %}
