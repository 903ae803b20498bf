-- Month-to-date orders per item in New York, day by day: a CUMULATE with 1-day steps over calendar months on New
-- York's wall clock, computed as a window cascade from the daily table (each day's window_time lies in its own local
-- day), so a run reads this month's daily rows, never the month's events.
-- The daily rows a run rewrites have a window_time at or after E - 1 hour - 1 ms (E = interval start - allowed
-- lateness; New York's UTC offsets span an hour): a day more than the events' allowed lateness covers them.
{%- set lateness = window_tvf._parse_duration(var('allowed_lateness'), this.name, 'allowed_lateness') %}
{{ window_tvf.incremental_window_aggregate(
    ref('fct_item_sales_daily_new_york'),
    window={'tvf': 'cumulate', 'timecol': 'window_time', 'step': '1 day', 'size': '1 month',
        'time_zone': 'America/New_York'},
    group_by='item_id',
    aggregates={
        'orders': 'sum(orders)',
        'quantity': 'sum(quantity)',
    },
    interval_start=var('data_interval_start'),
    allowed_lateness=(lateness // 1000 + 86400000) ~ ' milliseconds',
    arrival_partition={'column': 'window_date', 'period': '1 day'},
) }}
