-- Orders per item per local day in New York: a 1-day TUMBLE on New York's wall clock, whatever the session time
-- zone. A day runs from local midnight to local midnight: 23 hours on the day clocks spring forward, 25 on the day
-- they fall back (window_start and window_end are wall-clock times, timestamp_ntz; window_time is the instant the
-- day's last millisecond ends).
-- A window cascade over the 15-minute windows (fct_item_sales_tumble_15m: every local day is whole 15-minute windows,
-- New York's offsets being whole hours), so a run reads today's 15-minute rows (at most 96 per item), never today's
-- events: what a run costs does not grow through the day. The 15-minute rows are 15-minute windows
-- (input_window_size): one that late events change can be timed before them, so the macro takes allowed_lateness +
-- 15 minutes + New York's offset spread (1 hour) as their lateness.
{{ window_tvf.incremental_window_aggregate(
    ref('fct_item_sales_tumble_15m'),
    window={'tvf': 'tumble', 'timecol': 'window_time', 'size': '1 day', 'time_zone': 'America/New_York'},
    group_by='item_id',
    aggregates={
        'orders': 'sum(orders)',
        'quantity': 'sum(quantity)',
    },
    interval_start=window_tvf.scheduled_var('data_interval_start'),
    allowed_lateness=window_tvf.scheduled_var('allowed_lateness'),
    emit='on_update_flagged',
    interval_end=window_tvf.scheduled_var('data_interval_end'),
    input_window_size='15 minutes',
    arrival_partition={'column': 'window_date', 'period': '1 day'},
) }}
