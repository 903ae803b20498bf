-- Orders per item so far each day, hour by hour (CUMULATE: 1-hour steps, 1-day windows).
-- A window cascade over the 15-minute windows (fct_item_sales_tumble_15m), so a run reads today's 15-minute rows (at
-- most 96 per item), never today's events: what a run costs does not grow through the day. Late events within the
-- allowed lateness correct their windows (through the 15-minute rows they change), and a rerun writes the same rows.
{{ window_tvf.incremental_window_aggregate(
    ref('fct_item_sales_tumble_15m'),
    window={'tvf': 'cumulate', 'timecol': 'window_time', 'step': '1 hour', 'size': '1 day'},
    group_by='item_id',
    aggregates={
        'orders': 'sum(orders)',
        'quantity': 'sum(quantity)',
        'min_quantity': 'min(min_quantity)',
        'max_quantity': 'max(max_quantity)',
    },
    interval_start=window_tvf.scheduled_var('data_interval_start'),
    allowed_lateness=window_tvf.scheduled_var('allowed_lateness'),
    emit='on_update_flagged',
    interval_end=window_tvf.scheduled_var('data_interval_end'),
    input_window_size='15 minutes',
    arrival_partition={'column': 'window_date', 'period': '1 day'},
) }}
