select
    bidtime,
    price,
    item,
    bidder
from {{ ref('bid_by_bidder') }}
