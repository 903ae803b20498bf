-- The users active on each local day in New York, one row per user and day: a 1-day TUMBLE on New York's wall
-- clock grouped by user. The rolling active-user counts (fct_active_users_*_new_york) are window cascades over it,
-- so a run reads at most 30 days of these rows, never 30 days of events.
{{ window_tvf.incremental_window_aggregate(
    ref('int_order_events_on_time'),
    window={'tvf': 'tumble', 'timecol': 'event_time', 'size': '1 day', 'time_zone': 'America/New_York'},
    group_by='user_id',
    aggregates={'events': 'count(*)'},
    interval_start=window_tvf.scheduled_var('data_interval_start'),
    allowed_lateness=window_tvf.scheduled_var('allowed_lateness'),
    arrival_partition={'column': 'arrival_hour', 'period': '1 hour'},
) }}
