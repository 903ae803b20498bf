-- fct_item_sales_month_to_date_new_york as a dbt microbatch model, a cascade over the daily microbatch model: its
-- time column is the days' window_time, and the days are stored by the UTC date of it (window_date), so a batch reads
-- this month's daily rows only (arrival_partition over window_date; a day's row is never late for its date).
{{ window_tvf.window_aggregate(
    ref('fct_item_sales_daily_new_york_microbatch'),
    window={'tvf': 'cumulate', 'timecol': 'window_time', 'step': '1 day', 'size': '1 month',
        'time_zone': 'America/New_York',
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
