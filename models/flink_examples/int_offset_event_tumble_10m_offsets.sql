{#- The documented offset table: one record, a 10 minute tumbling window, seven offsets. -#}
{%- set offsets = ['-16 MINUTE', '-6 MINUTE', '-4 MINUTE', none, '4 MINUTE', '6 MINUTE', '16 MINUTE'] -%}

{% for window_offset in offsets %}
select
    '{{ window_offset or 0 }}' as window_offset,
    event_time,
    window_start,
    window_end
from (
    {{ window_tvf.tumble(ref('stg_offset_event'), 'event_time', '10 minutes', offset=window_offset) }}
) as offset_{{ loop.index }}
{% if not loop.last %}union all{% endif %}
{%- endfor %}
