-- Orders that cannot be windowed: the producer sent no event time (null, or no event_time key). A time that is
-- there but not valid is no order event: its line is in fct_rejected_order_events.
{{ config(materialized='view') }}

select
    event_id,
    user_id,
    item_id,
    quantity,
    arrival_time,
    source_file,
    line_number,
    arrival_hour
from {{ ref('int_order_events') }}
where arrival_status = 'no_event_time'
