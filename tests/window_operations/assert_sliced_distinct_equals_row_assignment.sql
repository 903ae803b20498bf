-- Distinct counts on window_aggregate's sliced paths (exact count(distinct x) counted from distinct (key, x, slice)
-- rows, macros/window_operations/slicing/distinct.sql; the approx_distinct forms merged from per-slice HLL
-- sketches) with either shuffle (keys='few' and 'many') give exactly the rows of the row path (each row copied into
-- its windows, then count(distinct x) and hll_sketch_agg per window), on 1500 generated events over 2024-02-25 .. 2024-03-11: NULL keys, NULL
-- values, a value that is NULL on every row from 06:00 to 08:00 (windows inside those hours count 0 and exist),
-- hours 03:00-05:00 left empty, hop offsets, a size that is not a multiple of its slide, a hop with gaps, a day-long
-- hop (block merges), a calendar hop, cumulate with an offset and month-to-date by day in New York across its DST
-- change, a timestamp_ntz time column, no group_by, several distinct aggregates mixed with merged ones in one call,
-- a distinct count of the group_by key itself, and sessions (each session's rows grouped once).
{%- set windows = [
    {'tvf': 'hop', 'timecol': 'event_time', 'slide': '20 minutes', 'size': '40 minutes'},
    {'tvf': 'hop', 'timecol': 'event_time', 'slide': '7 minutes', 'size': '30 minutes', 'offset': '2 minutes'},
    {'tvf': 'hop', 'timecol': 'event_time', 'slide': '1 hour', 'size': '20 minutes'},
    {'tvf': 'hop', 'timecol': 'event_time', 'slide': '30 minutes', 'size': '1 day', 'offset': '3 minutes'},
    {'tvf': 'hop', 'timecol': 'event_time', 'slide': '6 hours', 'size': '1 day', 'time_zone': 'America/New_York'},
    {'tvf': 'hop', 'timecol': 'event_time', 'slide': '1 month', 'size': '2 months', 'time_zone': 'America/New_York'},
    {'tvf': 'cumulate', 'timecol': 'event_time', 'step': '20 minutes', 'size': '2 hours', 'offset': '-20 minutes'},
    {'tvf': 'cumulate', 'timecol': 'event_time', 'step': '1 day', 'size': '1 month', 'time_zone': 'America/New_York'},
    {'tvf': 'cumulate', 'timecol': 'event_time_ntz', 'step': '1 day', 'size': '1 week', 'week_start': 'sunday'},
    {'tvf': 'session', 'timecol': 'event_time', 'gap': '20 minutes', 'partition_by': 'event_key'},
] %}
{#- Without group_by (only distinct counts, so no partial column: a hidden count(*) lists the windows) for these. -#}
{%- set ungrouped = [2, 8] %}
{%- set aggregates = {
    'events': 'count(*)', 'users': 'count(distinct user_id)', 'total': 'sum(amount)',
    'amounts': 'count(DISTINCT amount)', 'keys': 'count(distinct event_key)', 'largest': 'max(amount)',
    'approx_users': 'approx_distinct(user_id)', 'approx_names': 'approx_distinct(user_name, 6)',
} %}
{%- set distinct_only = {'users': 'count(distinct user_id)', 'names': 'count(distinct lower(user_name))'} %}
{%- set columns = ['window_case', 'window_start', 'window_end', 'window_time', 'event_key'] + aggregates.keys() | list
    + ['names'] %}

with generated as (
    select
        id,
        case when id % 7 = 0 then null else concat('k', id % 3) end as event_key,
        timestampadd(second, cast(pmod(xxhash64(id, 2), 16 * 86400) as int), timestamp'2024-02-25 00:00:00') as event_time,
        case when id % 5 = 0 then null else cast(pmod(xxhash64(id, 3), 1000) as int) - 300 end as amount,
        cast(pmod(xxhash64(id, 4), 200) as bigint) as user_number
    from range(1500)
),

events as (
    select
        event_key,
        event_time,
        cast(event_time as timestamp_ntz) as event_time_ntz,
        amount,
        case when hour(event_time) in (6, 7) or id % 11 = 0 then null else user_number end as user_id,
        case when id % 13 = 0 then null else concat('User', user_number % 90) end as user_name
    from generated
    where hour(event_time) not in (3, 4)
),

{#- Each window on the row path and both sliced plans ('few' only where its SQL differs), each read once. -#}
{%- set cases = [] %}
{%- for window in windows %}
{%- set window_index = loop.index %}
{%- for group_by, case_aggregates in [('event_key', aggregates), (none, distinct_only)]
    if group_by or window_index in ungrouped %}
{%- do cases.append({'id': window_index * 10 + loop.index, 'window': window, 'group_by': group_by,
    'aggregates': case_aggregates}) %}
{%- endfor %}
{%- endfor %}

compared as (
    {{ window_tvf._sliced_plans_compared('events', cases, columns) }}
),

-- the test must be able to fail: windows whose every user_id is NULL exist (count 0), and counts above 1 occur
checked as (
    select
        compared.*,
        count_if(rows_copies > 0 and users = 0) over () as windows_without_users,
        count_if(rows_copies > 0 and users > 1) over () as windows_with_users,
        count_if(rows_copies > 0 and amounts > 1 and keys = 1) over () as windows_with_amounts
    from compared
)

select
    case
        when least(windows_without_users, windows_with_users, windows_with_amounts) = 0
            then 'a case this test must hold is missing'
        else 'the plans differ'
    end as problem,
    checked.*
from checked
where plans_differ
    or least(windows_without_users, windows_with_users, windows_with_amounts) = 0
