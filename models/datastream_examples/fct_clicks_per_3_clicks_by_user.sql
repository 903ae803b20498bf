with click_windows as (
    select * from {{ ref('int_clicks_count_window_3_by_user') }}
)

select
    user_id,
    window_index,
    min(clicked_at) as first_click_at,
    max(clicked_at) as last_click_at,
    count(*) as clicks,
    sum(dwell_seconds) as dwell_seconds
from click_windows
group by user_id, window_index
