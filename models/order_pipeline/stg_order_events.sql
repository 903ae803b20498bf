-- Every line of the landing files that arrived in the data interval, parsed; one partition per arrival hour, so a
-- rerun of the interval replaces exactly its own hours. Duplicates, late and time-less events are kept here:
-- this is the count of "events in". The arrival hour is parsed once, here, into a timestamp: every later model
-- filters on it as it is, so Spark prunes its partitions.
{{ config(
    materialized='incremental',
    incremental_strategy='insert_overwrite',
    partition_by=['arrival_hour'],
) }}

{%- set files = var('landing_event_files') %}

with landed_lines as (
    {%- for path in files %}
    select
        value as line,
        '{{ path }}' as source_file
    from text.`{{ path }}`
    {%- if not loop.last %}
    union all
    {%- endif %}
    {%- else %}
    select
        cast(null as string) as line,
        cast(null as string) as source_file
    where false
    {%- endfor %}
),

parsed as (
    select
        from_json(
            line,
            'event_id string, user_id string, item_id string, quantity int, event_time string, arrival_time string'
        ) as event,
        source_file
    from landed_lines
)

select
    event.event_id as event_id,
    event.user_id as user_id,
    event.item_id as item_id,
    event.quantity as quantity,
    cast(event.event_time as timestamp) as event_time,
    cast(event.arrival_time as timestamp) as arrival_time,
    source_file,
    -- The start of the file's arrival hour: 2026-01-01 03:00 UTC from events_2026-01-01T03_part2.jsonl.
    to_timestamp(
        concat(regexp_extract(source_file, 'events_([0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2})[^/]*$', 1), 'Z'),
        "yyyy-MM-dd'T'HHX"
    ) as arrival_hour
from parsed
