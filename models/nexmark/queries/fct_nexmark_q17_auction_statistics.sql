-- Nexmark q17, Auction Statistics Report: per auction and day, how many bids (in all and per price rank) and their
-- lowest, highest, average and total price. Nexmark's SQL (queries/q17.sql) groups by auction,
-- DATE_FORMAT(dateTime, 'yyyy-MM-dd'); here the day is a 1 day TUMBLE window, count(*) FILTER is count_if, and the
-- average is cast to BIGINT as Nexmark's sink declares it (Flink's AVG of a BIGINT is a BIGINT, truncated).
-- Every aggregate merges, so window_aggregate slices.
{% set tumble_1d = {'tvf': 'tumble', 'timecol': 'date_time', 'size': '1 day'} %}

with daily as (
    {{ window_tvf.window_aggregate(ref('stg_nexmark__bid'), tumble_1d, 'auction', {
        'total_bids': 'count(*)',
        'rank1_bids': 'count_if(price < 10000)',
        'rank2_bids': 'count_if(price >= 10000 and price < 1000000)',
        'rank3_bids': 'count_if(price >= 1000000)',
        'min_price': 'min(price)',
        'max_price': 'max(price)',
        'avg_price': 'avg(price)',
        'sum_price': 'sum(price)',
    }) }}
)

select
    auction,
    date_format(window_start, 'yyyy-MM-dd') as day,
    total_bids,
    rank1_bids,
    rank2_bids,
    rank3_bids,
    min_price,
    max_price,
    cast(avg_price as bigint) as avg_price,
    sum_price
from daily
