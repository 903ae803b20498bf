-- window_aggregate's sliced paths, with either shuffle (keys='few' and 'many'), give exactly the rows of the
-- row-assignment path for windows on zones' wall clocks and calendar windows (weeks, month-to-date, months,
-- quarters, years), on 4000 generated events over 2024-02-20 .. 2024-04-10 (month ends, a leap day, New York's DST
-- change), NULL keys and values, every mergeable aggregate, and sessions in a zone with and without partition_by.
-- Fixed windows in UTC: assert_sliced_aggregation_equals_row_assignment.sql.
{%- set zoned_windows = [
    {'tvf': 'tumble', 'timecol': 'event_time', 'size': '1 day', 'time_zone': 'America/New_York'},
    {'tvf': 'tumble', 'timecol': 'event_time', 'size': '1 hour', 'offset': '15 minutes', 'time_zone': 'Australia/Lord_Howe'},
    {'tvf': 'hop', 'timecol': 'event_time', 'slide': '6 hours', 'size': '1 day', 'time_zone': 'America/New_York'},
    {'tvf': 'cumulate', 'timecol': 'event_time', 'step': '1 hour', 'size': '1 day', 'time_zone': 'America/New_York'},
    {'tvf': 'cumulate', 'timecol': 'event_time', 'step': '1 day', 'size': '1 month', 'time_zone': 'America/New_York'},
    {'tvf': 'cumulate', 'timecol': 'event_time', 'step': '1 month', 'size': '1 year', 'time_zone': 'Asia/Kolkata'},
    {'tvf': 'cumulate', 'timecol': 'event_time', 'step': '1 day', 'size': '1 week', 'week_start': 'sunday'},
    {'tvf': 'tumble', 'timecol': 'event_time', 'size': '1 month', 'offset': '6 hours', 'time_zone': 'Europe/London'},
    {'tvf': 'hop', 'timecol': 'event_time', 'slide': '1 month', 'size': '1 quarter', 'time_zone': 'America/New_York'},
    {'tvf': 'tumble', 'timecol': 'event_time', 'size': '1 week', 'time_zone': 'America/New_York'},
    {'tvf': 'session', 'timecol': 'event_time', 'gap': '20 minutes', 'time_zone': 'America/New_York'},
    {'tvf': 'session', 'timecol': 'event_time', 'gap': '30 minutes', 'partition_by': 'event_key', 'time_zone': 'America/New_York'},
    {'tvf': 'tumble', 'timecol': 'event_time_ntz', 'size': '1 month'},
    {'tvf': 'cumulate', 'timecol': 'event_time_ntz', 'step': '1 day', 'size': '1 month'},
] %}
{%- set aggregates = {
    'events': 'count(*)', 'amounts': 'count(amount)', 'total': 'sum(amount)', 'smallest': 'min(amount)',
    'largest': 'max(amount)', 'mean': 'avg(amount)', 'positives': 'count_if(amount > 0)',
    'all_positive': 'bool_and(amount > 0)', 'any_large': 'bool_or(amount > 600)',
} %}
{%- set columns = ['window_case', 'window_start', 'window_end', 'window_time', 'event_key'] + aggregates.keys() | list %}

with spring_events as (
    select
        case when id % 7 = 0 then null else concat('k', id % 3) end as event_key,
        timestampadd(second, cast(pmod(xxhash64(id, 2), 50 * 86400) as int), timestamp'2024-02-20 00:00:00') as event_time,
        case when id % 5 = 0 then null else cast(pmod(xxhash64(id, 3), 1000) as int) - 300 end as amount
    from range(4000)
),

spring as (
    select *, cast(event_time as timestamp_ntz) as event_time_ntz from spring_events
),

{#-
    Each window on the row path, on the sliced path with the rows shuffled once by key ('many'), and with partial
    aggregation before the shuffle ('few') where that changes the SQL (hop, cumulate, sessions with partition keys).
    Each plan is read once.
-#}
{%- set cases = [] %}
{%- for window in zoned_windows %}
{%- do cases.append({'id': 100 + loop.index, 'window': window, 'group_by': 'event_key', 'aggregates': aggregates}) %}
{%- endfor %}

compared as (
    {{ window_tvf._sliced_plans_compared('spring', cases, columns) }}
)

select * from compared where plans_differ
