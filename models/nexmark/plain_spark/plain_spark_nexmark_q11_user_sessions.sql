-- Nexmark q11 in plain Spark SQL, Nexmark's query with Spark's session_window() for SESSION: the reference for
-- fct_nexmark_q11_user_sessions.
select
    bidder,
    count(*) as bid_count,
    session_window(date_time, '10 seconds').start as starttime,
    session_window(date_time, '10 seconds').end as endtime
from {{ ref('stg_nexmark__bid') }}
group by bidder, session_window(date_time, '10 seconds')
