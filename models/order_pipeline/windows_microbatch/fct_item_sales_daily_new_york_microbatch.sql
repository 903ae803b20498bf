-- fct_item_sales_daily_new_york as a dbt microbatch model: New York's local days, each in the UTC day batch that holds
-- its window_time (local midnight less 1 ms: 03:59:59.999 or 04:59:59.999 UTC). A cascade over the 15-minute
-- microbatch model, as the insert_overwrite table is over its own: its time column is the 15-minute windows'
-- window_time, stored by its UTC date (window_date), so a batch reads the local day's 15-minute rows, never its
-- events (arrival_partition over window_date; a 15-minute row is never late for its date).
{{ window_tvf.window_aggregate(
    ref('fct_item_sales_tumble_15m_microbatch'),
    window={'tvf': 'tumble', 'timecol': 'window_time', 'size': '1 day', 'time_zone': 'America/New_York',
        'arrival_partition': {'column': 'window_date', 'period': '1 day'},
        'allowed_lateness': '0 seconds'},
    group_by='item_id',
    aggregates={
        'orders': 'sum(orders)',
        'quantity': 'sum(quantity)',
    },
    emit='on_update_flagged',
    watermark=window_tvf.interval_watermark(
        window_tvf.scheduled_var('data_interval_end'), window_tvf.scheduled_var('allowed_lateness')),
) }}
