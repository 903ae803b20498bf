with last_2_clicks as (
    select * from {{ ref('int_clicks_tumble_30m_last_2_by_user') }}
)

select
    window_start,
    window_end,
    user_id,
    count(*) as clicks,
    sum(dwell_seconds) as dwell_seconds
from last_2_clicks
group by window_start, window_end, user_id
