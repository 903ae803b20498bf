-- Each user's orders per UTC hour (a 1-hour TUMBLE grouped by user): the input of the users' local days
-- (int_user_days_new_york, a window cascade), so that no model reads a whole day of events. Stored by the hour of
-- window_time (window_partition='hour'): a run rewrites the hours its interval's on-time events can change and copies
-- nothing else, where partitions by date would copy the day's earlier hours every run.
{{ config(partition_by=['window_hour']) }}
{{ window_tvf.incremental_window_aggregate(
    ref('int_order_events_on_time'),
    window={'tvf': 'tumble', 'timecol': 'event_time', 'size': '1 hour'},
    group_by='user_id',
    aggregates={'events': 'count(*)'},
    interval_start=window_tvf.scheduled_var('data_interval_start'),
    allowed_lateness=window_tvf.scheduled_var('allowed_lateness'),
    arrival_partition={'column': 'arrival_hour', 'period': '1 hour'},
    window_partition='hour',
) }}
