with bids_hop as (
    {{ window_tvf.hop(ref('stg_bid'), 'bidtime', '5 minutes', '10 minutes') }}
)

select
    window_start,
    window_end,
    sum(price) as price
from bids_hop
group by window_start, window_end
