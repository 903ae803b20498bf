-- Every line of the landing files that arrived in the data interval, one row per line (and one per empty file),
-- parsed by window_tvf.parse_json_lines against the definition of a valid order event (docs/dirty_feeds.md):
--   event_id, user_id, item_id  JSON strings of 1 to 128 visible characters (no spaces or control characters);
--                                a NULL event_id is `null_key`;
--   quantity                     a JSON number that is a whole number from 1 to 2147483647 (2.0 and 1e3 are whole;
--                                0 and negative quantities are not orders);
--   event_time                   an ISO time with its zone (Z or +05:00), from 1970 to 2099, or null/absent: an
--                                order without a known time (fct_order_events_without_time);
--   arrival_time                 an ISO time with its zone, from 1970 to 2099;
--   other keys                   ignored.
-- A line that is not a valid event keeps NULL in every event column, its text, and its reason (fct_rejected_order_events);
-- duplicates, late and time-less events are kept here too: this is the count of the interval's lines. The arrival
-- hour is parsed once, here, into a timestamp: every later model filters on it as it is, so Spark prunes partitions.
{{ config(
    materialized='incremental',
    incremental_strategy='insert_overwrite',
    partition_by=['arrival_hour'],
) }}

{%- set identifier = {'type': 'string', 'pattern': '[^\\s\\p{Z}\\p{C}]{1,128}'} %}
{%- set instant = {'type': 'timestamp', 'require_zone': true, 'min': '1970-01-01T00:00:00Z', 'max': '2099-12-31T23:59:59.999999Z'} %}

with landed_lines as (
    {{ window_tvf.text_file_lines(window_tvf.scheduled_var('landing_event_files')) }}
),

parsed as (
    {{ window_tvf.parse_json_lines(
        'landed_lines',
        fields={
            'event_id': dict(identifier, key=true),
            'user_id': identifier,
            'item_id': identifier,
            'quantity': {'type': 'int', 'min': 1},
            'event_time': dict(instant, required=false, nullable=true),
            'arrival_time': instant,
        },
        max_line_bytes=var('max_landing_line_bytes'),
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
    case when reason is not null then line end as line,
    case when line_number is null then 'empty_file' else reason end as reason,
    case when line_number is null then 'empty_file: the file holds no line' else reason_message end as reason_message,
    -- The start of the file's arrival hour: 2026-01-01 03:00 UTC from events_2026-01-01T03_part2.jsonl (read from
    -- the names when the model compiles; a file named otherwise fails it, naming the file and the form).
    {{ window_tvf.file_name_time(window_tvf.scheduled_var('landing_event_files'), var('landing_event_file_name')) }} as arrival_hour
from parsed
