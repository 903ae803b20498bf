-- Nexmark q7 in plain Spark SQL, Nexmark's query with Spark's window() for TUMBLE and the bid's window taken as
-- half-open: the reference for fct_nexmark_q7_highest_bid.
with max_prices as (
    select
        window(date_time, '10 seconds') as bid_window,
        max(price) as maxprice
    from {{ ref('stg_nexmark__bid') }}
    group by window(date_time, '10 seconds')
)

select
    bids.auction,
    bids.bidder,
    bids.price,
    bids.date_time,
    bids.extra
from {{ ref('stg_nexmark__bid') }} as bids
inner join max_prices
    on bids.price = max_prices.maxprice
    and bids.date_time >= max_prices.bid_window.start
    and bids.date_time < max_prices.bid_window.end
