-- The events that are windowed: deduplicated, with an event time, and within the allowed lateness.
{{ config(materialized='view') }}

select *
from {{ ref('int_order_events') }}
where arrival_status = 'on_time'
