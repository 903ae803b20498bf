with bids_cumulate as (
    {{ window_tvf.cumulate(ref('stg_bid'), 'bidtime', '2 minutes', '10 minutes') }}
)

select
    window_start,
    window_end,
    sum(price) as price
from bids_cumulate
group by window_start, window_end
