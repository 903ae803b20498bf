-- Events that cannot be windowed: no event time, or one that did not parse.
{{ config(materialized='view') }}

select
    event_id,
    user_id,
    item_id,
    quantity,
    arrival_time,
    source_file,
    arrival_hour
from {{ ref('int_order_events') }}
where arrival_status = 'no_event_time'
