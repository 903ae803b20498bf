-- Nexmark q18 in plain Spark SQL, Nexmark's query with row_number(): the reference for fct_nexmark_q18_last_bid.
-- Bids tied on the latest time are ordered by the rule window_tvf documents for keep='last': every column, in the
-- bid's column order, descending.
select
    auction,
    bidder,
    price,
    channel,
    url,
    date_time,
    extra
from (
    select
        *,
        row_number() over (
            partition by bidder, auction
            order by date_time desc, auction desc, bidder desc, price desc, channel desc, url desc, extra desc
        ) as rank_number
    from {{ ref('stg_nexmark__bid') }}
) as ranked
where rank_number <= 1
