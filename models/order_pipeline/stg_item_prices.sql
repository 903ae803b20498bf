-- Item price snapshots the interval's events can need: from the one in force at the earliest on-time event time to
-- the interval's end (var landing_price_files), one partition per snapshot, so a run (or a rerun) rewrites the
-- snapshots it read and leaves others alone. The DAG runs this only after the snapshot in force at the interval's
-- end has landed.
{{ config(
    materialized='incremental',
    incremental_strategy='insert_overwrite',
    partition_by=['valid_from'],
) }}

{%- set files = var('landing_price_files') %}

with snapshot_lines as (
    {%- for path in files %}
    select value as line
    from text.`{{ path }}`
    {%- if not loop.last %}
    union all
    {%- endif %}
    {%- else %}
    select cast(null as string) as line
    where false
    {%- endfor %}
),

parsed as (
    select from_json(line, 'item_id string, price decimal(10, 2), valid_from string') as snapshot_row
    from snapshot_lines
)

select
    snapshot_row.item_id as item_id,
    snapshot_row.price as price,
    cast(snapshot_row.valid_from as timestamp) as valid_from
from parsed
