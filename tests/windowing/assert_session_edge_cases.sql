-- SESSION 10 minutes by partition_key: events exactly one gap apart chain into one session, one microsecond more
-- starts a new one; duplicate times share a session; NULL keys form their own partition; a NULL time is in none.
with events as (
    select event_id, event_time, partition_key
    from {{ ref('edge_events') }}
    where case_name = 'session_chain'
),

actual as (
    select 'session_chain' as case_name, event_id, window_start, window_end, window_time
    from ({{ window_tvf.session('events', 'event_time', '10 minutes', partition_by=['partition_key']) }}) as windowed
),

expected as (
    select * from {{ ref('expected_edge_windows') }} where case_name = 'session_chain'
)

{{ window_tvf.rowset_diff('actual', 'expected', ['case_name', 'event_id', 'window_start', 'window_end', 'window_time']) }}
