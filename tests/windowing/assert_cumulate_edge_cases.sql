-- CUMULATE 2 / 10 minutes with an offset of 3 minutes (windows aligned on size, not step), including a row on the
-- start of a max-size period and one in its last step, and a row before 1970.
{%- set cases = [
    ('cumulate_offset', '3 minutes'),
    ('cumulate_pre_epoch', none),
] %}

with
{% for case_name, offset in cases %}
{{ case_name }}_events as (
    select event_id, event_time from {{ ref('edge_events') }} where case_name = '{{ case_name }}'
),
{% endfor %}

actual as (
    {% for case_name, offset in cases %}
    select '{{ case_name }}' as case_name, event_id, window_start, window_end, window_time
    from ({{ window_tvf.cumulate(case_name ~ '_events', 'event_time', '2 minutes', '10 minutes', offset) }}) as windowed
    {% if not loop.last %}union all{% endif %}
    {% endfor %}
),

expected as (
    select * from {{ ref('expected_edge_windows') }} where case_name like 'cumulate%'
)

{{ window_tvf.rowset_diff('actual', 'expected', ['case_name', 'event_id', 'window_start', 'window_end', 'window_time']) }}
