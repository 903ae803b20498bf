-- NULL keys never match in a window join: a left row with a NULL key is not in the semi join and is kept by the
-- anti join (NOT EXISTS semantics), even when the right side has a NULL key in the same window. CTE inputs work
-- for semi and anti joins.
{%- set window = {'tvf': 'tumble', 'timecol': 'row_time', 'size': '5 minutes'} %}

with left_rows as (
    select cast(row_time as timestamp) as row_time, num, id
    from values
        ('2020-04-15 12:01:00', 1, 'L1'),
        ('2020-04-15 12:02:00', cast(null as int), 'L2'),
        ('2020-04-15 12:06:00', 1, 'L3')
        as t(row_time, num, id)
),

right_rows as (
    select cast(row_time as timestamp) as row_time, num, id
    from values
        ('2020-04-15 12:03:00', 1, 'R1'),
        ('2020-04-15 12:04:00', cast(null as int), 'R2')
        as t(row_time, num, id)
),

actual as (
    {% for join_type in ['semi', 'anti'] %}
    select '{{ join_type }}' as join_type, id
    from ({{ window_tvf.window_join('left_rows', window, 'right_rows', window, on='num', join_type=join_type) }}) as joined
    {% if not loop.last %}union all{% endif %}
    {% endfor %}
),

expected as (
    select * from values ('semi', 'L1'), ('anti', 'L2'), ('anti', 'L3') as t(join_type, id)
)

{{ window_tvf.rowset_diff('actual', 'expected', ['join_type', 'id']) }}
