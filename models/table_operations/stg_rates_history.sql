select
    rate_time,
    currency,
    rate
from {{ ref('rates_history') }}
