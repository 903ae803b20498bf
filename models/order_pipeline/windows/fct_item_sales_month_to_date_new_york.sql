-- Month-to-date orders per item in New York, day by day: a CUMULATE with 1-day steps over calendar months on New
-- York's wall clock, computed as a window cascade from the daily table (each day's window_time lies in its own local
-- day), so a run reads this month's daily rows, never the month's events.
-- The daily rows are 1-day windows (input_window_size): a daily row that late events change can be timed before
-- them, so the macro takes allowed_lateness + 1 day + New York's offset spread (1 hour) as the daily rows' lateness.
{{ window_tvf.incremental_window_aggregate(
    ref('fct_item_sales_daily_new_york'),
    window={'tvf': 'cumulate', 'timecol': 'window_time', 'step': '1 day', 'size': '1 month',
        'time_zone': 'America/New_York'},
    group_by='item_id',
    aggregates={
        'orders': 'sum(orders)',
        'quantity': 'sum(quantity)',
    },
    interval_start=window_tvf.scheduled_var('data_interval_start'),
    allowed_lateness=window_tvf.scheduled_var('allowed_lateness'),
    emit='on_update_flagged',
    interval_end=window_tvf.scheduled_var('data_interval_end'),
    input_window_size='1 day',
    arrival_partition={'column': 'window_date', 'period': '1 day'},
) }}
