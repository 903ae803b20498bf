-- HOP with a size that is not a multiple of its slide (5 s / 9 s), with a slide larger than its size (gaps: rows
-- in a gap are in no window), and with a negative offset across 1970-01-01.
{%- set cases = [
    ('hop_uneven', '5 seconds', '9 seconds', none),
    ('hop_gaps', '10 minutes', '5 minutes', none),
    ('hop_negative_offset', '5 minutes', '10 minutes', '-2 minutes'),
] %}

with
{% for case_name, slide, size, offset in cases %}
{{ case_name }}_events as (
    select event_id, event_time from {{ ref('edge_events') }} where case_name = '{{ case_name }}'
),
{% endfor %}

actual as (
    {% for case_name, slide, size, offset in cases %}
    select '{{ case_name }}' as case_name, event_id, window_start, window_end, window_time
    from ({{ window_tvf.hop(case_name ~ '_events', 'event_time', slide, size, offset) }}) as windowed
    {% if not loop.last %}union all{% endif %}
    {% endfor %}
),

expected as (
    select * from {{ ref('expected_edge_windows') }} where case_name like 'hop%'
)

{{ window_tvf.rowset_diff('actual', 'expected', ['case_name', 'event_id', 'window_start', 'window_end', 'window_time']) }}
