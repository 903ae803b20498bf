-- Orders per item in 1-hour windows that slide by 15 minutes.
-- Each run rebuilds the windows its interval's on-time events can change, from every event they hold, read from the
-- arrival hours that can hold them: late events within the allowed lateness correct their windows, and a rerun
-- writes the same rows.
{{ window_tvf.incremental_window_aggregate(
    ref('int_order_events_on_time'),
    window={'tvf': 'hop', 'timecol': 'event_time', 'slide': '15 minutes', 'size': '1 hour'},
    group_by='item_id',
    aggregates={
        'orders': 'count(*)',
        'quantity': 'sum(quantity)',
        'min_quantity': 'min(quantity)',
        'max_quantity': 'max(quantity)',
    },
    interval_start=window_tvf.scheduled_var('data_interval_start'),
    allowed_lateness=window_tvf.scheduled_var('allowed_lateness'),
    emit='on_update_flagged',
    interval_end=window_tvf.scheduled_var('data_interval_end'),
    arrival_partition={'column': 'arrival_hour', 'period': '1 hour'},
) }}
