-- fillna and dropna on a 101-column table without naming a column. After fillna(0) only the 15 string columns
-- can still hold NULLs (w2, w4 and w6 have all of them NULL, w5 the eight even-numbered ones); after
-- fillna('none') only the 85 numeric ones; dropna(51) keeps rows with at least 51 non-NULL values (w1 101,
-- w4 86, w5 51; not w3 16, w6 2, w2 1); dropna(-1) keeps every row, since id is never NULL.
{%- set wide = ref('wide_table') %}
{%- set data_columns = [] %}
{%- for i in range(1, 101) %}{% do data_columns.append(('n' if i <= 70 else 'd' if i <= 85 else 's') ~ '%03d' % i) %}{% endfor %}
{%- set null_count %}
    {% for column in data_columns %}(case when {{ column }} is null then 1 else 0 end){{ ' + ' if not loop.last }}{% endfor %}
{%- endset %}

with actual as (
    select 'fillna_0' as check_name, id, {{ null_count }} as value
    from ({{ window_tvf.fillna(wide, 0) }}) as filled
    union all
    select 'fillna_string', id, {{ null_count }}
    from ({{ window_tvf.fillna(wide, 'none') }}) as filled
    union all
    select 'fillna_0_n037_value', id, n037 from ({{ window_tvf.fillna(wide, 0) }}) as filled where id = 'w2'
    union all
    select 'dropna_51', id, 0 from ({{ window_tvf.dropna(wide, 51) }}) as kept
    union all
    select 'dropna_all_null', id, 0 from ({{ window_tvf.dropna(wide, -1) }}) as kept
),

expected as (
    select * from values
        ('fillna_0', 'w1', 0), ('fillna_0', 'w2', 15), ('fillna_0', 'w3', 0),
        ('fillna_0', 'w4', 15), ('fillna_0', 'w5', 8), ('fillna_0', 'w6', 15),
        ('fillna_string', 'w1', 0), ('fillna_string', 'w2', 85), ('fillna_string', 'w3', 85),
        ('fillna_string', 'w4', 0), ('fillna_string', 'w5', 42), ('fillna_string', 'w6', 84),
        ('fillna_0_n037_value', 'w2', 0),
        ('dropna_51', 'w1', 0), ('dropna_51', 'w4', 0), ('dropna_51', 'w5', 0),
        ('dropna_all_null', 'w1', 0), ('dropna_all_null', 'w2', 0), ('dropna_all_null', 'w3', 0),
        ('dropna_all_null', 'w4', 0), ('dropna_all_null', 'w5', 0), ('dropna_all_null', 'w6', 0)
        as t(check_name, id, value)
)

{{ window_tvf.rowset_diff('actual', 'expected', ['check_name', 'id', 'value']) }}
