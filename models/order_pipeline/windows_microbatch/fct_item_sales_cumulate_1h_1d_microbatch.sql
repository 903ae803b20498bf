-- fct_item_sales_cumulate_1h_1d as a dbt microbatch model: a cascade over the 15-minute microbatch model (its
-- window_time as the time column, stored by its UTC date), so a batch reads its day's 15-minute rows, never its events.
{{ window_tvf.window_aggregate(
    ref('fct_item_sales_tumble_15m_microbatch'),
    window={'tvf': 'cumulate', 'timecol': 'window_time', 'step': '1 hour', 'size': '1 day',
        'arrival_partition': {'column': 'window_date', 'period': '1 day'},
        'allowed_lateness': '0 seconds'},
    group_by='item_id',
    aggregates={
        'orders': 'sum(orders)',
        'quantity': 'sum(quantity)',
        'min_quantity': 'min(min_quantity)',
        'max_quantity': 'max(max_quantity)',
    },
    emit='on_update_flagged',
    watermark=window_tvf.interval_watermark(
        window_tvf.scheduled_var('data_interval_end'), window_tvf.scheduled_var('allowed_lateness')),
) }}
