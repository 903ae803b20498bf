-- The reference's Table API examples on a NULL-heavy table: fillna(1, ['a', 'b']), fillna({'a': 1, 'b': 3}),
-- fillna(0) and fillna('n/a') on the columns whose type fits, dropna(2), dropna(1, ['a', 'b']), dropna(-1, ...),
-- dropna(3, ...), replace({1: 3, 2: 4}, ['a', 'b']), deduplicate([a, b], proctime, first/last) and
-- topn(n, [a, b], [c, d desc]).
{%- set t = ref('table_api_t') %}
{%- set columns = 'id, a, b, c, d, e, proctime' %}
{%- set cases = [
    ('fillna_1_ab', window_tvf.fillna(t, 1, ['a', 'b'])),
    ('fillna_map', window_tvf.fillna(t, {'a': 1, 'b': 3})),
    ('fillna_0_fitting', window_tvf.fillna(t, 0)),
    ('fillna_string_fitting', window_tvf.fillna(t, 'n/a')),
    ('dropna_2', window_tvf.dropna(t, 2)),
    ('dropna_1_ab', window_tvf.dropna(t, 1, ['a', 'b'])),
    ('dropna_all_null_abcde', window_tvf.dropna(t, -1, ['a', 'b', 'c', 'd', 'e'])),
    ('dropna_3_abcd', window_tvf.dropna(t, 3, ['a', 'b', 'c', 'd'])),
    ('replace_ab', window_tvf.replace(t, {1: 3, 2: 4}, ['a', 'b'])),
    ('dedup_first', window_tvf.deduplicate(t, ['a', 'b'], ['proctime asc nulls last'])),
    ('dedup_last', window_tvf.deduplicate(t, ['a', 'b'], ['proctime asc nulls last'], keep='last')),
] %}

with actual as (
    {% for operation, sql in cases %}
    select '{{ operation }}' as operation, {{ columns }}, cast(null as int) as rownum
    from ({{ sql }}) as result
    union all
    {% endfor %}
    select 'top2_c_d_desc' as operation, {{ columns }}, rownum
    from ({{ window_tvf.topn(t, 2, ['a', 'b'], ['c', 'd desc'], rank_column='rownum') }}) as result
    union all
    select 'top1_c_desc_nulls_last' as operation, {{ columns }}, rownum
    from ({{ window_tvf.topn(t, 1, ['a', 'b'], ['c desc nulls last'], rank_column='rownum') }}) as result
),

expected as (
    select * from {{ ref('expected_table_api_t') }}
)

{{ window_tvf.rowset_diff('actual', 'expected', ['operation', 'id', 'a', 'b', 'c', 'd', 'e', 'proctime', 'rownum']) }}
