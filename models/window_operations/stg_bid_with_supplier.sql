select
    bidtime,
    price,
    item,
    supplier_id
from {{ ref('bid_with_supplier') }}
