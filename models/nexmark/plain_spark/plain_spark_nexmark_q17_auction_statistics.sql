-- Nexmark q17 in plain Spark SQL, Nexmark's query as written (it is Spark SQL already), the average cast to BIGINT
-- as its sink declares: the reference for fct_nexmark_q17_auction_statistics.
select
    auction,
    date_format(date_time, 'yyyy-MM-dd') as day,
    count(*) as total_bids,
    count(*) filter (where price < 10000) as rank1_bids,
    count(*) filter (where price >= 10000 and price < 1000000) as rank2_bids,
    count(*) filter (where price >= 1000000) as rank3_bids,
    min(price) as min_price,
    max(price) as max_price,
    cast(avg(price) as bigint) as avg_price,
    sum(price) as sum_price
from {{ ref('stg_nexmark__bid') }}
group by auction, date_format(date_time, 'yyyy-MM-dd')
