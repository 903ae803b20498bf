-- CountEvictor(2) on 10 minute tumbling panes per user: keeps the last 2 rows in time order, ties broken by the
-- whole row (event_id first): a pane of 5 keeps one of two identical rows, a pane of 2 keeps both, a tie on the
-- time column at the cut keeps the greater event_id. With the default window_by the users share a pane. On count
-- windows (window_by window_index, user_id), CountEvictor(1) keeps the last row of each firing.
with events as (
    select event_id, user_id, event_time, price
    from {{ ref('datastream_events') }}
    where case_name = 'evictors'
),

windowed as (
    {{ window_tvf.tumble('events', 'event_time', '10 minutes') }}
),

count_window_events as (
    select event_id, user_id, event_time, price
    from {{ ref('datastream_events') }}
    where case_name = 'count_windows'
),

count_windowed as (
    {{ window_tvf.count_window('count_window_events', 'event_time', 3, partition_by='user_id') }}
),

actual as (
    select 'count_2' as evict_case, event_id, user_id, window_start, cast(null as bigint) as window_index
    from (
        {{ window_tvf.evict_count('windowed', 'event_time', 2, window_by=['window_start', 'window_end', 'user_id']) }}
    ) as kept
    union all
    select 'count_2_default_panes' as evict_case, event_id, user_id, window_start, cast(null as bigint) as window_index
    from ({{ window_tvf.evict_count('windowed', 'event_time', 2) }}) as kept
    union all
    select 'count_1_of_count_windows' as evict_case, event_id, user_id, cast(null as timestamp) as window_start, window_index
    from (
        {{ window_tvf.evict_count('count_windowed', 'event_time', 1, window_by=['window_index', 'user_id']) }}
    ) as kept
),

expected as (
    select * from {{ ref('expected_evictions') }} where evict_case like 'count%'
)

{{ window_tvf.rowset_diff('actual', 'expected', ['evict_case', 'event_id', 'user_id', 'window_start', 'window_index']) }}
