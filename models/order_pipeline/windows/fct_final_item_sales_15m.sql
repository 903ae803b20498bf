-- The 15-minute item sales a dashboard charts: only final windows, those no later on-time event can change (is_final
-- in fct_item_sales_tumble_15m: window_time at or before the last interval's end less the allowed lateness, less
-- 1 ms). A window appears here once, with its final values, and never changes after; the provisional windows of the
-- last allowed_lateness are in fct_item_sales_tumble_15m (is_final = false) for those who want them early.
{{ config(materialized='view') }}

select
    window_start,
    window_end,
    window_time,
    item_id,
    orders,
    quantity,
    min_quantity,
    max_quantity,
    window_date
from {{ ref('fct_item_sales_tumble_15m') }}
where is_final
