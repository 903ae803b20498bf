-- Session gaps from a per-row expression. Each row opens [time, time + its gap); windows that overlap or touch
-- merge. Key y shows why the running maximum matters: 11:25 is 15 minutes after 11:10 (whose gap is 1 minute)
-- but still inside 11:00's 30 minute window, so all three rows are one session, as in Flink.
with events as (
    select event_key, cast(event_time as timestamp) as event_time, gap_minutes
    from values
        ('x', '2020-04-15 10:00:00', 5),
        ('x', '2020-04-15 10:04:00', 1),
        ('x', '2020-04-15 10:06:00', 10),
        ('x', '2020-04-15 10:16:00', 1),
        ('y', '2020-04-15 11:00:00', 30),
        ('y', '2020-04-15 11:10:00', 1),
        ('y', '2020-04-15 11:25:00', 1),
        (null, '2020-04-15 11:00:00', 2),
        ('x', null, 1)
        as t(event_key, event_time, gap_minutes)
),

actual as (
    select event_key, event_time, window_start, window_end, window_time
    from ({{ window_tvf.dynamic_session('events', 'event_time', 'gap_minutes * 60000', partition_by='event_key') }}) as sessions
),

expected as (
    select
        event_key,
        cast(event_time as timestamp) as event_time,
        cast(window_start as timestamp) as window_start,
        cast(window_end as timestamp) as window_end,
        cast(window_time as timestamp) as window_time
    from values
        ('x', '2020-04-15 10:00:00', '2020-04-15 10:00:00', '2020-04-15 10:05:00', '2020-04-15 10:04:59.999'),
        ('x', '2020-04-15 10:04:00', '2020-04-15 10:00:00', '2020-04-15 10:05:00', '2020-04-15 10:04:59.999'),
        ('x', '2020-04-15 10:06:00', '2020-04-15 10:06:00', '2020-04-15 10:17:00', '2020-04-15 10:16:59.999'),
        ('x', '2020-04-15 10:16:00', '2020-04-15 10:06:00', '2020-04-15 10:17:00', '2020-04-15 10:16:59.999'),
        ('y', '2020-04-15 11:00:00', '2020-04-15 11:00:00', '2020-04-15 11:30:00', '2020-04-15 11:29:59.999'),
        ('y', '2020-04-15 11:10:00', '2020-04-15 11:00:00', '2020-04-15 11:30:00', '2020-04-15 11:29:59.999'),
        ('y', '2020-04-15 11:25:00', '2020-04-15 11:00:00', '2020-04-15 11:30:00', '2020-04-15 11:29:59.999'),
        (null, '2020-04-15 11:00:00', '2020-04-15 11:00:00', '2020-04-15 11:02:00', '2020-04-15 11:01:59.999')
        as t(event_key, event_time, window_start, window_end, window_time)
)

{{ window_tvf.rowset_diff('actual', 'expected', ['event_key', 'event_time', 'window_start', 'window_end', 'window_time']) }}
