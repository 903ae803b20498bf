-- Nexmark q7, Highest Bid: the bids with the highest price in each 10 second period (all of them when several
-- tie). Nexmark's SQL (queries/q7.sql): max(price) per TUMBLE(TABLE bid, DESCRIPTOR(dateTime), INTERVAL '10'
-- SECOND), joined back to the bids on price = maxprice and dateTime BETWEEN window_end - 10 s AND window_end.
-- BETWEEN includes window_end, which is the first instant of the next window: a bid at exactly that instant whose
-- price equals the earlier window's maximum would be reported for a window it is not in. Beam's Query7 (Nexmark's
-- origin) compares within the window, and so does this model: window_start <= dateTime < window_end
-- (docs/nexmark.md). Columns as Nexmark's sink declares them (its SELECT lists price before bidder, into the
-- sink's bidder column).
{% set tumble_10s = {'tvf': 'tumble', 'timecol': 'date_time', 'size': '10 seconds'} %}

with max_prices as (
    {{ window_tvf.window_aggregate(ref('stg_nexmark__bid'), tumble_10s, none, {'maxprice': 'max(price)'}) }}
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
    and bids.date_time >= max_prices.window_start
    and bids.date_time < max_prices.window_end
