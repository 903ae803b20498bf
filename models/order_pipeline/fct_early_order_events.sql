-- Events whose event time lies after the end of the hour they arrived in: a producer clock ahead of ours. Windows
-- are rebuilt from the arrival hours that can hold their events, so these are listed here instead, never lost.
{{ config(materialized='view') }}

select
    event_id,
    user_id,
    item_id,
    quantity,
    event_time,
    arrival_time,
    source_file,
    line_number,
    arrival_hour
from {{ ref('int_order_events') }}
where arrival_status = 'early'
