-- Nexmark q16 in plain Spark SQL, Nexmark's query as written (it is Spark SQL already): the reference for
-- fct_nexmark_q16_channel_statistics.
select
    channel,
    date_format(date_time, 'yyyy-MM-dd') as day,
    max(date_format(date_time, 'HH:mm')) as minute,
    count(*) as total_bids,
    count(*) filter (where price < 10000) as rank1_bids,
    count(*) filter (where price >= 10000 and price < 1000000) as rank2_bids,
    count(*) filter (where price >= 1000000) as rank3_bids,
    count(distinct bidder) as total_bidders,
    count(distinct bidder) filter (where price < 10000) as rank1_bidders,
    count(distinct bidder) filter (where price >= 10000 and price < 1000000) as rank2_bidders,
    count(distinct bidder) filter (where price >= 1000000) as rank3_bidders,
    count(distinct auction) as total_auctions,
    count(distinct auction) filter (where price < 10000) as rank1_auctions,
    count(distinct auction) filter (where price >= 10000 and price < 1000000) as rank2_auctions,
    count(distinct auction) filter (where price >= 1000000) as rank3_auctions
from {{ ref('stg_nexmark__bid') }}
group by channel, date_format(date_time, 'yyyy-MM-dd')
