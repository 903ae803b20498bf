with bids_10m as (
    {{ window_tvf.tumble(ref('stg_bid'), 'bidtime', '10 minutes') }}
)

select
    window_start,
    window_end,
    sum(price) as price
from bids_10m
group by window_start, window_end
