-- Events that arrived later than `allowed_lateness` allows: not in any published window, never silently lost.
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
where arrival_status = 'late'
