-- Nexmark q11, User Sessions: how many bids did a user make in each session they were active? A session is a
-- bidder's run of bids at most 10 seconds apart. Nexmark's SQL (queries/q11.sql): GROUP BY bidder,
-- SESSION(dateTime, INTERVAL '10' SECOND), with SESSION_START and SESSION_END.
{% set sessions_10s = {'tvf': 'session', 'timecol': 'date_time', 'gap': '10 seconds', 'partition_by': 'bidder'} %}

with bidder_sessions as (
    {{ window_tvf.window_aggregate(ref('stg_nexmark__bid'), sessions_10s, 'bidder', {'bid_count': 'count(*)'}) }}
)

select
    bidder,
    bid_count,
    window_start as starttime,
    window_end as endtime
from bidder_sessions
