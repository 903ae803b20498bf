-- fct_item_sales_tumble_15m as a dbt microbatch model (the folder's config in dbt_project.yml: incremental_strategy
-- microbatch, event_time window_time, batch_size day, partition_by window_date). In a batch, window_aggregate reads
-- the events its windows hold (arrival_partition: only the arrival hours that can hold them) and keeps the windows
-- whose window_time lies in the batch.
{{ window_tvf.window_aggregate(
    ref('int_order_events_on_time'),
    window={'tvf': 'tumble', 'timecol': 'event_time', 'size': '15 minutes',
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
