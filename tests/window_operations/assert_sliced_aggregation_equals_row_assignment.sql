-- window_aggregate's sliced paths, with either shuffle (keys='few': partial aggregation before the shuffle;
-- keys='many': the rows shuffled once by key), give exactly the rows of the row-assignment path (copy each row
-- into every window, then GROUP BY), for every mergeable aggregate, on 4000 generated events: NULL keys and NULL
-- values, times from 1969-12-30 to 1970-01-02 (before and after the epoch), hours 03:00-05:00 left empty (empty
-- slices inside windows), offsets, a hop size that is not a multiple of its slide, a hop with gaps, a day-long hop,
-- hops on every merge (the key's next slices with 'many', slices copied into windows with 'few', block merges for
-- long ones with both), and cumulating and session windows (sessions over gap buckets, and over rows when an
-- aggregate does not merge; tumbling windows with aggregates that do not merge); tumble, hop and cumulate also on a
-- timestamp_ntz copy of the time column; and sessions without partition_by grouped by key: several keys share one
-- session, whose bounds every group must carry. Zoned and calendar windows:
-- assert_sliced_calendar_aggregation_equals_row_assignment.sql (two queries plan faster than one of twice the size).
{%- set windows = [
    {'tvf': 'tumble', 'timecol': 'event_time', 'size': '10 minutes'},
    {'tvf': 'tumble', 'timecol': 'event_time', 'size': '1 day', 'offset': '-6 hours'},
    {'tvf': 'hop', 'timecol': 'event_time', 'slide': '5 minutes', 'size': '10 minutes'},
    {'tvf': 'hop', 'timecol': 'event_time', 'slide': '7 minutes', 'size': '30 minutes', 'offset': '2 minutes'},
    {'tvf': 'hop', 'timecol': 'event_time', 'slide': '1 hour', 'size': '20 minutes'},
    {'tvf': 'hop', 'timecol': 'event_time', 'slide': '10 minutes', 'size': '1 day', 'offset': '3 minutes'},
    {'tvf': 'cumulate', 'timecol': 'event_time', 'step': '1 hour', 'size': '1 day'},
    {'tvf': 'cumulate', 'timecol': 'event_time', 'step': '10 minutes', 'size': '1 hour', 'offset': '-20 minutes'},
    {'tvf': 'session', 'timecol': 'event_time', 'gap': '20 minutes', 'partition_by': 'event_key'},
    {'tvf': 'tumble', 'timecol': 'event_time_ntz', 'size': '1 day', 'offset': '-6 hours'},
    {'tvf': 'hop', 'timecol': 'event_time_ntz', 'slide': '7 minutes', 'size': '30 minutes', 'offset': '2 minutes'},
    {'tvf': 'cumulate', 'timecol': 'event_time_ntz', 'step': '10 minutes', 'size': '1 hour', 'offset': '-20 minutes'},
    {'tvf': 'session', 'timecol': 'event_time', 'gap': '20 minutes'},
] %}
{%- set aggregates = {
    'events': 'count(*)', 'amounts': 'count(amount)', 'total': 'sum(amount)', 'smallest': 'min(amount)',
    'largest': 'max(amount)', 'mean': 'avg(amount)', 'positives': 'count_if(amount > 0)',
    'all_positive': 'bool_and(amount > 0)', 'any_large': 'bool_or(amount > 600)',
} %}
{#- Long hops over few aggregates take the lead path (windows of 20 and 25 slices, 5 partial columns: 114 and 144
    lead values, at most 160); with all of the aggregates above they take block merges. -#}
{%- set lead_aggregates = {'events': 'count(*)', 'total': 'sum(amount)', 'smallest': 'min(amount)', 'mean': 'avg(amount)'} %}
{#- Aggregates that do not merge: tumble computes them whole per slice (a window is one slice); sessions number
    the rows themselves instead of gap buckets. -#}
{%- set unmerged_aggregates = {'events': 'count(*)', 'amounts': 'count(distinct amount) filter (where amount > 0)',
    'total': 'sum(distinct amount)', 'mean': 'avg(amount)'} %}
{%- set partial_cases = [
    ({'tvf': 'hop', 'timecol': 'event_time', 'slide': '3 minutes', 'size': '1 hour'}, lead_aggregates),
    ({'tvf': 'hop', 'timecol': 'event_time_ntz', 'slide': '2 minutes', 'size': '50 minutes', 'offset': '1 minute'},
        lead_aggregates),
    ({'tvf': 'session', 'timecol': 'event_time', 'gap': '20 minutes', 'partition_by': 'event_key'},
        unmerged_aggregates),
    ({'tvf': 'session', 'timecol': 'event_time_ntz', 'gap': '7 minutes'}, unmerged_aggregates),
    ({'tvf': 'tumble', 'timecol': 'event_time', 'size': '10 minutes'}, unmerged_aggregates),
    ({'tvf': 'tumble', 'timecol': 'event_time_ntz', 'size': '1 day', 'offset': '-6 hours'}, unmerged_aggregates),
] %}
{%- set columns = ['window_case', 'window_start', 'window_end', 'window_time', 'event_key'] + aggregates.keys() | list %}

with events as (
    select
        case when id % 7 = 0 then null else concat('k', id % 3) end as event_key,
        timestampadd(second, cast(pmod(xxhash64(id), 3 * 86400) as int), timestamp'1969-12-30 00:00:00') as event_time,
        case when id % 5 = 0 then null else cast(pmod(xxhash64(id, 1), 1000) as int) - 300 end as amount
    from range(4000)
),

hour_gaps as (
    select *, cast(event_time as timestamp_ntz) as event_time_ntz from events where hour(event_time) not in (3, 4)
),

{#-
    Each case on the row path ('rows'), on the sliced path with the rows shuffled once by key ('many'), and with
    partial aggregation before the shuffle ('few'), where that changes the SQL (not for tumble, nor for sessions
    without partition keys or whose aggregates do not merge). Each plan is read once.
-#}
{%- set cases = [] %}
{%- for window in windows %}
{%- do cases.append({'id': loop.index, 'window': window, 'group_by': 'event_key', 'aggregates': aggregates}) %}
{%- endfor %}
{%- for window, case_aggregates in partial_cases %}
{%- do cases.append({'id': windows | length + loop.index, 'window': window, 'group_by': 'event_key',
    'aggregates': case_aggregates}) %}
{%- endfor %}

compared as (
    {{ window_tvf._sliced_plans_compared('hour_gaps', cases, columns) }}
)

select * from compared where plans_differ
