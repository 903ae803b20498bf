-- Orders per item so far each day, hour by hour (CUMULATE: 1-hour steps, 1-day windows).
-- Each run rebuilds the windows its interval's on-time events can change, from every event they hold, read from the
-- arrival hours that can hold them: late events within the allowed lateness correct their windows, and a rerun
-- writes the same rows.
{{ window_tvf.incremental_window_aggregate(
    ref('int_order_events_on_time'),
    window={'tvf': 'cumulate', 'timecol': 'event_time', 'step': '1 hour', 'size': '1 day'},
    group_by='item_id',
    aggregates={
        'orders': 'count(*)',
        'quantity': 'sum(quantity)',
        'min_quantity': 'min(quantity)',
        'max_quantity': 'max(quantity)',
    },
    interval_start=window_tvf.scheduled_var('data_interval_start'),
    allowed_lateness=window_tvf.scheduled_var('allowed_lateness'),
    arrival_partition={'column': 'arrival_hour', 'period': '1 hour'},
) }}
