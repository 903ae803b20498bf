-- TimeEvictor(3 minutes) on 10 minute tumbling panes per user: keeps rows at or after the pane's latest time
-- minus 3 minutes. e02 lies exactly on that bound and stays; e01, one microsecond before it, is removed; a pane
-- spanning 1 minute keeps all; the NULL-user pane and the one-row pane keep their rows.
with events as (
    select event_id, user_id, event_time, price
    from {{ ref('datastream_events') }}
    where case_name = 'evictors'
),

windowed as (
    {{ window_tvf.tumble('events', 'event_time', '10 minutes') }}
),

actual as (
    select 'time_3m' as evict_case, event_id, user_id, window_start, cast(null as bigint) as window_index
    from (
        {{ window_tvf.evict_time('windowed', 'event_time', '3 minutes', window_by=['window_start', 'window_end', 'user_id']) }}
    ) as kept
),

expected as (
    select * from {{ ref('expected_evictions') }} where evict_case like 'time%'
)

{{ window_tvf.rowset_diff('actual', 'expected', ['evict_case', 'event_id', 'user_id', 'window_start', 'window_index']) }}
