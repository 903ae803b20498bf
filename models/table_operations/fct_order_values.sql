-- Each order valued at the rate in force when it was placed (Flink's FOR SYSTEM_TIME AS OF join); orders with
-- no rate yet keep a NULL value instead of disappearing.
with orders_with_rate as (
    {{ window_tvf.asof_join(ref('stg_orders'), ref('stg_rates_history'), 'order_time', 'rate_time', on='currency') }}
)

select
    order_id,
    order_time,
    currency,
    amount,
    rate,
    amount * rate as order_value
from orders_with_rate
