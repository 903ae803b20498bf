-- The interval's on-time orders valued at the item price in force at their event time (an as-of join against
-- the price snapshots). The DAG runs it only after the snapshot in force at the interval's end has loaded, and
-- joins the snapshots the interval's events can need (int_item_prices_in_force).
{{ config(
    materialized='incremental',
    incremental_strategy='insert_overwrite',
    partition_by=['arrival_hour'],
) }}

with interval_events as (
    select *
    from {{ ref('int_order_events_on_time') }}
    {%- if window_tvf.scheduled_var('data_interval_start') and is_incremental() %}
    where arrival_hour >= timestamp'{{ window_tvf.scheduled_var('data_interval_start') }}'
        and arrival_hour < timestamp'{{ window_tvf.scheduled_var('data_interval_end') }}'
    {%- endif %}
),

priced as (
    {{ window_tvf.asof_join(
        'interval_events',
        ref('int_item_prices_in_force'),
        'event_time',
        'valid_from',
        on='item_id',
    ) }}
)

select
    event_id,
    user_id,
    item_id,
    quantity,
    event_time,
    price,
    valid_from as price_valid_from,
    quantity * price as order_value,
    arrival_hour
from priced
