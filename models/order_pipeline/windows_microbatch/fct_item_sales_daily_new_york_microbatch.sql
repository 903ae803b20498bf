-- fct_item_sales_daily_new_york as a dbt microbatch model: New York's local days, each in the UTC day batch that holds
-- its window_time (local midnight less 1 ms: 03:59:59.999 or 04:59:59.999 UTC), read from local midnight.
{{ window_tvf.window_aggregate(
    ref('int_order_events_on_time'),
    window={'tvf': 'tumble', 'timecol': 'event_time', 'size': '1 day', 'time_zone': 'America/New_York',
        'arrival_partition': {'column': 'arrival_hour', 'period': '1 hour'},
        'allowed_lateness': window_tvf.scheduled_var('allowed_lateness')},
    group_by='item_id',
    aggregates={
        'orders': 'count(*)',
        'quantity': 'sum(quantity)',
    },
) }}
