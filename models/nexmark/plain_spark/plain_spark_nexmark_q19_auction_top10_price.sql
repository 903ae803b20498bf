-- Nexmark q19 in plain Spark SQL, Nexmark's query with row_number(): the reference for
-- fct_nexmark_q19_auction_top10_price. Bids of equal price are ordered by the rule window_tvf documents: every
-- column, in the bid's column order, ascending.
select *
from (
    select
        *,
        row_number() over (
            partition by auction
            order by price desc, auction, bidder, price, channel, url, date_time, extra
        ) as rank_number
    from {{ ref('stg_nexmark__bid') }}
) as ranked
where rank_number <= 10
