-- Flink's window join example: LeftTable and RightTable joined on num within 5 minute tumbling windows,
-- once per inner/outer join type.
{%- set window = {'tvf': 'tumble', 'timecol': 'row_time', 'size': '5 minutes'} %}
{% for join_type in ['inner', 'left', 'right', 'full'] %}
select
    '{{ join_type }}' as join_type,
    *
from (
    {{ window_tvf.window_join(ref('stg_left_table'), window, ref('stg_right_table'), window, on=['num'], join_type=join_type) }}
) as {{ join_type }}_joined
{% if not loop.last %}union all{% endif %}
{%- endfor %}
