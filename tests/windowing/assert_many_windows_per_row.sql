-- One row in many windows: window k back is k slides (or steps) from the row, and k * slide passes 32 bits
-- (a day in microseconds is 8.64e10), which the window arithmetic must carry in 64 bits.
-- HOP 10 minutes / 1 day of 2020-01-01 05:30: 144 windows, starting every 10 minutes from 2019-12-31 05:40 to
-- 2020-01-01 05:30.
-- CUMULATE 10 minutes / 1 day of 2020-01-01 00:05: 144 windows from 2020-01-01, ending 00:10 ... 2020-01-02 00:00.
with event as (
    select timestamp'2020-01-01 05:30:00' as hop_time, timestamp'2020-01-01 00:05:00' as cumulate_time
),

hop_windows as (
    {{ window_tvf.hop('event', 'hop_time', '10 minutes', '1 day') }}
),

cumulate_windows as (
    {{ window_tvf.cumulate('event', 'cumulate_time', '10 minutes', '1 day') }}
),

observed as (
    select
        'hop' as tvf,
        count(*) as windows,
        count(distinct window_start) as distinct_windows,
        min(window_start) as first_bound,
        max(window_start) as last_bound,
        count_if(window_end != window_start + interval 1 day or minute(window_start) % 10 != 0
            or not (window_start <= hop_time and hop_time < window_end)) as wrong_windows
    from hop_windows
    union all
    select
        'cumulate',
        count(*),
        count(distinct window_end),
        min(window_end),
        max(window_end),
        count_if(window_start != timestamp'2020-01-01 00:00:00' or minute(window_end) % 10 != 0
            or not (window_start <= cumulate_time and cumulate_time < window_end))
    from cumulate_windows
),

expected as (
    select * from values
        ('hop', 144L, 144L, timestamp'2019-12-31 05:40:00', timestamp'2020-01-01 05:30:00', 0L),
        ('cumulate', 144L, 144L, timestamp'2020-01-01 00:10:00', timestamp'2020-01-02 00:00:00', 0L)
        as t(tvf, windows, distinct_windows, first_bound, last_bound, wrong_windows)
)

{{ window_tvf.rowset_diff('observed', 'expected', ['tvf', 'windows', 'distinct_windows', 'first_bound', 'last_bound', 'wrong_windows']) }}
