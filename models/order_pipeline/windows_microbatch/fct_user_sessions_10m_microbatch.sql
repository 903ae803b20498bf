-- fct_user_sessions_10m as a dbt microbatch model: a visit that spans batches is one row, in the batch in which it
-- ended (its window_time); a batch reads from the start of the earliest visit still open at its start.
{{ window_tvf.window_aggregate(
    ref('int_order_events_on_time'),
    window={'tvf': 'session', 'timecol': 'event_time', 'gap': '10 minutes', 'partition_by': 'user_id',
        'arrival_partition': {'column': 'arrival_hour', 'period': '1 hour'},
        'allowed_lateness': window_tvf.scheduled_var('allowed_lateness')},
    group_by='user_id',
    aggregates={
        'orders': 'count(*)',
        'quantity': 'sum(quantity)',
        'first_event_time': 'min(event_time)',
        'last_event_time': 'max(event_time)',
    },
    emit='on_update_flagged',
    watermark=window_tvf.interval_watermark(
        window_tvf.scheduled_var('data_interval_end'), window_tvf.scheduled_var('allowed_lateness')),
) }}
