-- Price snapshot lines the as-of join does not use (stg_item_prices), with their reason; an empty snapshot is one
-- row without a line number.
{{ config(materialized='view') }}

select
    valid_from,
    source_file,
    line_number,
    reason,
    reason_message as message,
    line
from {{ ref('stg_item_prices') }}
where reason is not null
