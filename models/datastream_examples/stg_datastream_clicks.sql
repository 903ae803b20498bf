select
    click_id,
    user_id,
    clicked_at,
    page,
    dwell_seconds
from {{ ref('datastream_clicks') }}
