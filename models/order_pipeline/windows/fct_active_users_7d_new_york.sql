-- Distinct active users over the last 7 New York local days, every day (WAU): a HOP 7 days / 1 day on New York's
-- wall clock, a window cascade over int_user_days_new_york (one row per user and local day; its window_time lies
-- in its own day).
-- active_users is exact (count(distinct) from distinct (user, day) rows, no row copied into the windows),
-- approx_active_users the HyperLogLog estimate (lg_k 12: about 1.6% relative standard error). The daily rows
-- are 1-day windows (input_window_size), as in fct_item_sales_month_to_date_new_york.
{{ window_tvf.incremental_window_aggregate(
    ref('int_user_days_new_york'),
    window={'tvf': 'hop', 'timecol': 'window_time', 'slide': '1 day',
        'size': '7 days', 'time_zone': 'America/New_York'},
    group_by=none,
    aggregates={
        'active_users': 'count(distinct user_id)',
        'approx_active_users': 'approx_distinct(user_id)',
    },
    interval_start=window_tvf.scheduled_var('data_interval_start'),
    allowed_lateness=window_tvf.scheduled_var('allowed_lateness'),
    input_window_size='1 day',
    arrival_partition={'column': 'window_date', 'period': '1 day'},
) }}
