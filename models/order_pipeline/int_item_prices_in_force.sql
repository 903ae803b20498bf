-- The price snapshots the interval's on-time events can need: from the one in force at the earliest on-time event
-- time (var price_snapshots_from, passed by the DAG) on. The as-of join reads this view, so it reads only those
-- partitions of stg_item_prices, however many snapshots have accumulated.
{{ config(materialized='view') }}

select *
from {{ ref('stg_item_prices') }}
{%- if var('price_snapshots_from') %}
where valid_from >= timestamp'{{ var('price_snapshots_from') }}'
{%- endif %}
