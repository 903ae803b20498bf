-- fct_item_sales_hop_1h_15m as a dbt microbatch model: a batch reads its windows' events from an hour before its
-- start, which dbt's own filter (the batch's events only) would cut.
{{ window_tvf.window_aggregate(
    ref('int_order_events_on_time'),
    window={'tvf': 'hop', 'timecol': 'event_time', 'slide': '15 minutes', 'size': '1 hour',
        'arrival_partition': {'column': 'arrival_hour', 'period': '1 hour'},
        'allowed_lateness': window_tvf.scheduled_var('allowed_lateness')},
    group_by='item_id',
    aggregates={
        'orders': 'count(*)',
        'quantity': 'sum(quantity)',
        'min_quantity': 'min(quantity)',
        'max_quantity': 'max(quantity)',
    },
    emit='on_update_flagged',
    watermark=window_tvf.interval_watermark(
        window_tvf.scheduled_var('data_interval_end'), window_tvf.scheduled_var('allowed_lateness')),
) }}
