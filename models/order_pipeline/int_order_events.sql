-- The interval's valid arrivals (stg_order_events without its rejected lines), deduplicated and classified (one
-- partition per arrival hour, like the landing files):
--   duplicates are dropped: the first arrival of an event_id is kept, and later copies are dropped for
--                  `deduplication_ttl` after it (window_tvf.incremental_deduplicate: Flink's state TTL; a copy that
--                  arrives later than that counts as a new event);
--   arrival_status 'on_time'       event time at most `allowed_lateness` before its arrival hour: windowed;
--                  'late'          earlier than that: kept out of published windows, listed in fct_late_order_events;
--                  'early'         at or after the end of its arrival hour (a producer clock ahead of ours): listed
--                                  in fct_early_order_events, since windows are rebuilt from the hours events arrive in;
--                  'no_event_time' no event time: listed in fct_order_events_without_time.
{{ config(
    materialized='incremental',
    incremental_strategy='insert_overwrite',
    partition_by=['arrival_hour'],
) }}

with valid_events as (
    select
        event_id,
        user_id,
        item_id,
        quantity,
        event_time,
        arrival_time,
        source_file,
        line_number,
        arrival_hour
    from {{ ref('stg_order_events') }}
    where reason is null
),

first_arrivals as (
    {{ window_tvf.incremental_deduplicate(
        'valid_events',
        partition_by='event_id',
        time_column='arrival_hour',
        ttl=window_tvf.scheduled_var('deduplication_ttl'),
        interval_start=window_tvf.scheduled_var('data_interval_start'),
        interval_end=window_tvf.scheduled_var('data_interval_end'),
        order_by=['arrival_time', 'source_file', 'line_number'],
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
    line_number,
    case
        when event_time is null then 'no_event_time'
        when event_time < arrival_hour - interval '{{ window_tvf.scheduled_var('allowed_lateness') }}' then 'late'
        when event_time >= arrival_hour + interval '1 hour' then 'early'
        else 'on_time'
    end as arrival_status,
    arrival_hour
from first_arrivals
