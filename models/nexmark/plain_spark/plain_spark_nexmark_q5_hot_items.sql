-- Nexmark q5 in plain Spark SQL, Nexmark's query with Spark's window() for HOP: the reference for
-- fct_nexmark_q5_hot_items.
with auction_bids as (
    select
        auction,
        count(*) as num,
        window(date_time, '10 seconds', '2 seconds') as bid_window
    from {{ ref('stg_nexmark__bid') }}
    group by auction, window(date_time, '10 seconds', '2 seconds')
),

max_bids as (
    select
        bid_window,
        max(num) as maxn
    from auction_bids
    group by bid_window
)

select
    auction_bids.auction,
    auction_bids.num,
    auction_bids.bid_window.start as starttime,
    auction_bids.bid_window.end as endtime
from auction_bids
inner join max_bids
    on auction_bids.bid_window = max_bids.bid_window
    and auction_bids.num >= max_bids.maxn
