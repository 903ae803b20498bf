select
    order_id,
    order_time,
    amount,
    currency
from {{ ref('orders') }}
