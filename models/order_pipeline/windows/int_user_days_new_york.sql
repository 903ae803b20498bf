-- The users active on each local day in New York, one row per user and day: a 1-day TUMBLE on New York's wall
-- clock grouped by user, as a window cascade over the users' UTC hours (int_user_hours: every local day is whole UTC
-- hours), so a run reads today's user hours (at most one row per user and hour), never today's events. The rolling
-- active-user counts (fct_active_users_*_new_york) are window cascades over it, so a run reads at most 30 days of
-- these rows, never 30 days of events.
{{ window_tvf.incremental_window_aggregate(
    ref('int_user_hours'),
    window={'tvf': 'tumble', 'timecol': 'window_time', 'size': '1 day', 'time_zone': 'America/New_York'},
    group_by='user_id',
    aggregates={'events': 'sum(events)'},
    interval_start=window_tvf.scheduled_var('data_interval_start'),
    allowed_lateness=window_tvf.scheduled_var('allowed_lateness'),
    input_window_size='1 hour',
    arrival_partition={'column': 'window_hour', 'period': '1 hour'},
) }}
