-- The interval's arrivals, deduplicated and classified (one partition per arrival hour, like the landing files):
--   duplicate copies are dropped: the first arrival of an event_id is kept, against every earlier interval too;
--   arrival_status 'on_time'       event time at most `allowed_lateness` before its arrival hour: windowed;
--                  'late'          earlier than that: kept out of published windows, listed in fct_late_order_events;
--                  'no_event_time' no (or an unparsable) event time: listed in fct_order_events_without_time.
{{ config(
    materialized='incremental',
    incremental_strategy='insert_overwrite',
    partition_by=['arrival_hour'],
) }}

{%- set interval_start = var('data_interval_start') %}
{%- set interval_end = var('data_interval_end') %}

with arrived_until_interval_end as (
    select
        *,
        cast(concat(arrival_hour, ':00:00Z') as timestamp) as arrival_hour_start
    from {{ ref('stg_order_events') }}
    {%- if interval_end %}
    where cast(concat(arrival_hour, ':00:00Z') as timestamp) < timestamp'{{ interval_end }}'
    {%- endif %}
),

first_arrivals as (
    {{ window_tvf.deduplicate(
        'arrived_until_interval_end',
        partition_by='event_id',
        order_by=['arrival_hour', 'arrival_time', 'source_file'],
        keep='first',
    ) }}
)

select
    event_id,
    user_id,
    item_id,
    quantity,
    event_time,
    arrival_time,
    source_file,
    case
        when event_time is null then 'no_event_time'
        when event_time < arrival_hour_start - interval '{{ var('allowed_lateness') }}' then 'late'
        else 'on_time'
    end as arrival_status,
    arrival_hour
from first_arrivals
{%- if interval_start and is_incremental() %}
where arrival_hour_start >= timestamp'{{ interval_start }}'
{%- endif %}
