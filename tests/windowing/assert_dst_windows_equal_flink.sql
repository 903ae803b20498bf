-- Windows on the wall clock of two DST zones (New York; Lord Howe, whose clocks move by 30 minutes) equal Flink
-- 2.3's output row for row (seeds/time_zones), and window columns have Flink's types: window_start and window_end
-- timestamp_ntz, window_time timestamp. Each case runs on a CTE (column type unknown at compile time) and on the
-- seed itself (type read from the warehouse), with the zone passed as time_zone in this UTC session.
{%- set cases = {
    'tumble_1d': {'tvf': 'tumble', 'size': '1 day'},
    'tumble_1h': {'tvf': 'tumble', 'size': '1 hour'},
    'tumble_30m_off15m': {'tvf': 'tumble', 'size': '30 minutes', 'offset': '15 minutes'},
    'hop_2h_1h': {'tvf': 'hop', 'slide': '1 hour', 'size': '2 hours'},
    'cumulate_1d_6h': {'tvf': 'cumulate', 'step': '6 hours', 'size': '1 day'},
    'session_30m': {'tvf': 'session', 'gap': '30 minutes', 'partition_by': ['time_zone', 'event_key']},
} %}
{%- set zones = ['America/New_York', 'Australia/Lord_Howe'] %}
{%- set inputs = {'cte': 'dst_events_cte', 'ref': ref('dst_events')} %}

with dst_events_cte as (
    select * from {{ ref('dst_events') }}
),

windowed as (
    {%- for input_kind, relation in inputs.items() %}
    {%- set outer = loop %}
    {%- for zone in zones %}
    {%- set zone_loop = loop %}
    {%- for name, spec in cases.items() %}
    select
        '{{ input_kind }}' as input_kind,
        time_zone,
        '{{ name }}' as window_case,
        event_id,
        window_start,
        window_end,
        window_time
    from ({{ window_tvf.apply_window(relation, dict(spec, timecol='event_time', time_zone=zone)) }}) as windows
    where time_zone = '{{ zone }}'
    {% if not (outer.last and zone_loop.last and loop.last) %}union all{% endif %}
    {%- endfor %}
    {%- endfor %}
    {%- endfor %}
),

wrong_types as (
    select distinct input_kind, window_case
    from windowed
    where typeof(window_start) != 'timestamp_ntz' or typeof(window_end) != 'timestamp_ntz' or typeof(window_time) != 'timestamp'
),

{%- for input_kind in inputs %}
actual_{{ input_kind }} as (
    select time_zone, window_case, event_id, window_start, window_end, window_time
    from windowed
    where input_kind = '{{ input_kind }}'
),
{%- endfor %}

expected as (
    select * from {{ ref('expected_dst_windows') }}
)

select concat('wrong window column types: ', input_kind, ' ', window_case) as diff, null as time_zone,
    window_case, null as event_id, null as window_start, null as window_end, null as window_time
from wrong_types
{%- for input_kind in inputs %}
union all
select concat('{{ input_kind }}: ', diff) as diff, time_zone, window_case, event_id, window_start, window_end, window_time
from ({{ window_tvf.rowset_diff('actual_' ~ input_kind, 'expected',
    ['time_zone', 'window_case', 'event_id', 'window_start', 'window_end', 'window_time']) }}) as differences
{%- endfor %}
