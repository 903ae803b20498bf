-- Orders per item per local day in New York: a 1-day TUMBLE on New York's wall clock, whatever the session time
-- zone. A day runs from local midnight to local midnight: 23 hours on the day clocks spring forward, 25 on the day
-- they fall back (window_start and window_end are wall-clock times, timestamp_ntz; window_time is the instant the
-- day's last millisecond ends). Rebuilt per interval like the other window tables.
{{ window_tvf.incremental_window_aggregate(
    ref('int_order_events_on_time'),
    window={'tvf': 'tumble', 'timecol': 'event_time', 'size': '1 day', 'time_zone': 'America/New_York'},
    group_by='item_id',
    aggregates={
        'orders': 'count(*)',
        'quantity': 'sum(quantity)',
    },
    interval_start=window_tvf.scheduled_var('data_interval_start'),
    allowed_lateness=window_tvf.scheduled_var('allowed_lateness'),
    arrival_partition={'column': 'arrival_hour', 'period': '1 hour'},
) }}
