-- Window semi join (Flink's IN / EXISTS) and anti join (NOT EXISTS) of LeftTable against RightTable.
{%- set window = {'tvf': 'tumble', 'timecol': 'row_time', 'size': '5 minutes'} %}
{% for join_type in ['semi', 'anti'] %}
select
    '{{ join_type }}' as join_type,
    *
from (
    {{ window_tvf.window_join(ref('stg_left_table'), window, ref('stg_right_table'), window, on='num', join_type=join_type) }}
) as {{ join_type }}_joined
{% if not loop.last %}union all{% endif %}
{%- endfor %}
