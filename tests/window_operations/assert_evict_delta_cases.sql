-- DeltaEvictor(4, |last price - price|) on 10 minute tumbling panes per user. The last element is the latest row,
-- ties broken by the whole row: of e08, e09 and e10 (same time) it is e10. Rows with a delta of 4 or more are
-- removed, e02 and e07 with a delta of exactly 4 too; a NULL price gives a NULL delta, which is not below the
-- threshold: e08 is removed, and in the pane whose last element (e13) has a NULL price every row is removed.
with events as (
    select event_id, user_id, event_time, price
    from {{ ref('datastream_events') }}
    where case_name = 'evictors'
),

windowed as (
    {{ window_tvf.tumble('events', 'event_time', '10 minutes') }}
),

actual as (
    select 'delta_4' as evict_case, event_id, user_id, window_start, cast(null as bigint) as window_index
    from (
        {{ window_tvf.evict_delta('windowed', 'event_time', 'abs(last_element.price - price)', 4,
            window_by=['window_start', 'window_end', 'user_id']) }}
    ) as kept
),

expected as (
    select * from {{ ref('expected_evictions') }} where evict_case like 'delta%'
)

{{ window_tvf.rowset_diff('actual', 'expected', ['evict_case', 'event_id', 'user_id', 'window_start', 'window_index']) }}
