-- The price of each item in each snapshot the interval's on-time events can need: from the one in force at the
-- earliest on-time event time (var price_snapshots_from, passed by the DAG) on, so the as-of join reads only those
-- partitions of stg_item_prices, however many snapshots have accumulated.
-- A snapshot is the full price list from its time until the next snapshot: an item it does not price usably (its
-- line rejected, two lines with different prices, no line at all, or an empty snapshot) has no price (NULL) from
-- that time on, never the price of an older snapshot. So every item priced by any of these snapshots gets a row in
-- each of them, NULL where that snapshot gives no usable price.
{{ config(materialized='view') }}

with snapshot_lines as (
    select *
    from {{ ref('stg_item_prices') }}
    {%- if window_tvf.scheduled_var('price_snapshots_from') %}
    where valid_from >= timestamp'{{ window_tvf.scheduled_var('price_snapshots_from') }}'
    {%- endif %}
),

usable_prices as (
    select
        item_id,
        price,
        valid_from
    from snapshot_lines
    where reason is null
),

snapshots as (
    select distinct valid_from
    from snapshot_lines
),

items as (
    select distinct item_id
    from usable_prices
)

select
    items.item_id,
    usable_prices.price,
    snapshots.valid_from
from items
cross join snapshots
left join usable_prices
    on usable_prices.item_id = items.item_id
    and usable_prices.valid_from = snapshots.valid_from
