-- Landing lines that are not valid order events (stg_order_events, window_tvf.parse_json_lines), with their reason:
-- never windowed, never lost. `line` is the line as it landed; an empty file is one row without a line number.
{{ config(materialized='view') }}

select
    arrival_hour,
    source_file,
    line_number,
    reason,
    reason_message as message,
    line
from {{ ref('stg_order_events') }}
where reason is not null
