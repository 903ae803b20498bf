-- Nexmark q5, Hot Items: which auctions have seen the most bids in the last period? Every 2 seconds, the auctions
-- with the most bids in the last 10 seconds (all of them when several tie).
-- Nexmark's SQL (queries/q5.sql): HOP(TABLE bid, DESCRIPTOR(dateTime), INTERVAL '2' SECOND, INTERVAL '10' SECOND),
-- count(*) per auction and window, joined with the window's max(num) on num >= maxn. Its sink keeps auction and
-- num; the window bounds are kept here too (starttime, endtime, as the query names them), since an auction can be
-- hot in several windows.
{% set hop_10s_every_2s = {'tvf': 'hop', 'timecol': 'date_time', 'slide': '2 seconds', 'size': '10 seconds'} %}

with auction_bids as (
    {{ window_tvf.window_aggregate(ref('stg_nexmark__bid'), hop_10s_every_2s, 'auction', {'num': 'count(*)'}) }}
),

-- the windows' largest count: a cascaded window aggregation over the already windowed counts
max_bids as (
    {{ window_tvf.window_aggregate('auction_bids', none, none, {'maxn': 'max(num)'}) }}
)

select
    auction_bids.auction,
    auction_bids.num,
    auction_bids.window_start as starttime,
    auction_bids.window_end as endtime
from auction_bids
inner join max_bids
    on auction_bids.window_start = max_bids.window_start
    and auction_bids.window_end = max_bids.window_end
    and auction_bids.num >= max_bids.maxn
