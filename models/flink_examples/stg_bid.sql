select
    bidtime,
    price,
    item
from {{ ref('bid') }}
