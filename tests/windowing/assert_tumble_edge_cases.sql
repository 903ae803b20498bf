-- TUMBLE 10 minutes on times before 1970, on and next to window boundaries, with microseconds, duplicate times
-- and duplicate rows; the row with a NULL time is in no window.
with events as (
    select event_id, event_time
    from {{ ref('edge_events') }}
    where case_name = 'tumble_edges'
),

actual as (
    select 'tumble_edges' as case_name, event_id, window_start, window_end, window_time
    from ({{ window_tvf.tumble('events', 'event_time', '10 minutes') }}) as windowed
),

expected as (
    select * from {{ ref('expected_edge_windows') }} where case_name = 'tumble_edges'
)

{{ window_tvf.rowset_diff('actual', 'expected', ['case_name', 'event_id', 'window_start', 'window_end', 'window_time']) }}
