-- fct_item_sales_cumulate_1h_1d as a dbt microbatch model: a batch reads from the start of the day its windows grow in.
{{ window_tvf.window_aggregate(
    ref('int_order_events_on_time'),
    window={'tvf': 'cumulate', 'timecol': 'event_time', 'step': '1 hour', 'size': '1 day',
        'arrival_partition': {'column': 'arrival_hour', 'period': '1 hour'},
        'allowed_lateness': window_tvf.scheduled_var('allowed_lateness')},
    group_by='item_id',
    aggregates={
        'orders': 'count(*)',
        'quantity': 'sum(quantity)',
        'min_quantity': 'min(quantity)',
        'max_quantity': 'max(quantity)',
    },
) }}
