-- Orders joined with the rate valid at the order's time (as-of, left and inner join), and with the newest rate
-- (processing-time form). See seeds/table_operations/_table_operations__seeds.yml for the edge rows.
with actual as (
    select 'asof_left' as join_kind, order_id, order_time, amount, currency, rate_time, rate
    from ({{ window_tvf.asof_join(ref('orders'), ref('rates_history'), 'order_time', 'rate_time', 'currency') }}) as joined
    union all
    select 'asof_inner', order_id, order_time, amount, currency, rate_time, rate
    from ({{ window_tvf.asof_join(ref('orders'), ref('rates_history'), 'order_time', 'rate_time', 'currency', join_type='inner') }}) as joined
    union all
    select 'latest_left', order_id, order_time, amount, currency, rate_time, rate
    from ({{ window_tvf.latest_version_join(ref('orders'), ref('rates_history'), 'rate_time', ['currency']) }}) as joined
),

expected as (
    select * from {{ ref('expected_order_rates') }}
)

{{ window_tvf.rowset_diff('actual', 'expected', ['join_kind', 'order_id', 'order_time', 'amount', 'currency', 'rate_time', 'rate']) }}
