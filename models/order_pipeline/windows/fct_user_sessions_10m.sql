-- Each user's visits: SESSION windows with a 10-minute gap. A visit that spans two data intervals (or midnight)
-- is one session: a run recomputes every stored session that a new on-time event could still join. Stored by the
-- hour of window_time (window_partition='hour'): a run rewrites the hours of those sessions and copies the final
-- sessions of those hours only, where partitions by date would copy all of the day's sessions every run.
{{ config(partition_by=['window_hour']) }}
{{ window_tvf.incremental_window_aggregate(
    ref('int_order_events_on_time'),
    window={'tvf': 'session', 'timecol': 'event_time', 'gap': '10 minutes', 'partition_by': 'user_id'},
    group_by='user_id',
    aggregates={
        'orders': 'count(*)',
        'quantity': 'sum(quantity)',
        'first_event_time': 'min(event_time)',
        'last_event_time': 'max(event_time)',
    },
    interval_start=window_tvf.scheduled_var('data_interval_start'),
    allowed_lateness=window_tvf.scheduled_var('allowed_lateness'),
    emit='on_update_flagged',
    interval_end=window_tvf.scheduled_var('data_interval_end'),
    arrival_partition={'column': 'arrival_hour', 'period': '1 hour'},
    window_partition='hour',
) }}
