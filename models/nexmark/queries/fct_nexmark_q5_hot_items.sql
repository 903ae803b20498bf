-- Nexmark q5, Hot Items: which auctions have seen the most bids in the last period? Every 2 seconds, the auctions
-- with the most bids in the last 10 seconds (all of them when several tie).
-- Nexmark's SQL (queries/q5.sql): HOP(TABLE bid, DESCRIPTOR(dateTime), INTERVAL '2' SECOND, INTERVAL '10' SECOND),
-- count(*) per auction and window, joined with the window's max(num) on num >= maxn. Its sink keeps auction and
-- num; the window bounds are kept here too (starttime, endtime, as the query names them), since an auction can be
-- hot in several windows.
-- The window's max(num) is a window function over the windowed counts, not Nexmark's self-join: Spark computes a
-- CTE once per reference, and the sliced counts are merged after their shuffle, so a self-join would merge them
-- twice (docs/nexmark.md measures both). The rows are the same: every auction whose count is the window's largest.
{% set hop_10s_every_2s = {'tvf': 'hop', 'timecol': 'date_time', 'slide': '2 seconds', 'size': '10 seconds'} %}

with auction_bids as (
    {{ window_tvf.window_aggregate(ref('stg_nexmark__bid'), hop_10s_every_2s, 'auction', {'num': 'count(*)'}) }}
),

with_window_max as (
    select
        auction,
        num,
        window_start,
        window_end,
        max(num) over (partition by window_start, window_end) as maxn
    from auction_bids
)

select
    auction,
    num,
    window_start as starttime,
    window_end as endtime
from with_window_max
where num >= maxn
