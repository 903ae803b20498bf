-- Sampling and splitting choose the same rows whatever the partitioning (one partition, or 7 after a shuffle),
-- every row lands in exactly one split, split_part returns exactly split's rows for its index, and fractions 0
-- and 1 return no rows and every row. Sizes: 3000 rows split 0.7 / 0.2 / 0.1, each within 4 standard deviations.
with one_partition as (
    select /*+ coalesce(1) */ id, id % 17 as customer from range(3000)
),

seven_partitions as (
    select /*+ repartition(7) */ id, id % 17 as customer from range(3000)
),

sample_difference as (
    select 'sample differs by partitioning' as problem, id from (
        (select id from ({{ window_tvf.sample('one_partition', 0.3, seed=7) }}) as s1
         except all
         select id from ({{ window_tvf.sample('seven_partitions', 0.3, seed=7) }}) as s7)
        union all
        (select id from ({{ window_tvf.sample('seven_partitions', 0.3, seed=7) }}) as s7
         except all
         select id from ({{ window_tvf.sample('one_partition', 0.3, seed=7) }}) as s1)
    ) as differences
),

splits as (
    select id, split_index from ({{ window_tvf.split('one_partition', [0.7, 0.2, 0.1], seed=11) }}) as s
),

split_parts as (
    {% for index in range(3) %}
    select id, {{ index }} as split_index
    from ({{ window_tvf.split_part('seven_partitions', [0.7, 0.2, 0.1], index, seed=11) }}) as p
    {% if not loop.last %}union all{% endif %}
    {% endfor %}
),

split_problems as (
    select 'split_part differs from split' as problem, id from (
        (select id, split_index from splits except all select id, split_index from split_parts)
        union all
        (select id, split_index from split_parts except all select id, split_index from splits)
    ) as differences
    union all
    select 'row not in exactly one split' as problem, id
    from split_parts group by id having count(*) != 1
    union all
    select 'row in no split' as problem, id
    from one_partition where id not in (select id from split_parts)
),

size_problems as (
    select 'split size off its weight' as problem, split_index as id
    from splits
    group by split_index
    having abs(count(*) - 3000 * element_at(array(0.7, 0.2, 0.1), split_index + 1))
        > 4 * sqrt(3000 * element_at(array(0.7, 0.2, 0.1), split_index + 1) * (1 - element_at(array(0.7, 0.2, 0.1), split_index + 1)))
    union all
    select 'sample size off its fraction' as problem, count(*) as id
    from ({{ window_tvf.sample('one_partition', 0.3, seed=7) }}) as s
    having abs(count(*) - 900) > 4 * sqrt(3000 * 0.3 * 0.7)
    union all
    select 'fraction 0 returned rows' as problem, count(*) as id
    from ({{ window_tvf.sample('one_partition', 0, seed=7) }}) as s having count(*) != 0
    union all
    select 'fraction 1 missed rows' as problem, count(*) as id
    from ({{ window_tvf.sample('one_partition', 1, seed=7) }}) as s having count(*) != 3000
    union all
    select 'key_columns split a key' as problem, customer as id
    from ({{ window_tvf.split('one_partition', [1, 1], seed=3, key_columns=['customer']) }}) as s
    group by customer having count(distinct split_index) != 1
)

select * from sample_difference
union all
select * from split_problems
union all
select * from size_problems
