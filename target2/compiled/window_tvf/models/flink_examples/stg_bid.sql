select
    bidtime,
    price,
    item
from window_tvf.bid