-- Every line of the price snapshots the interval's events can need (from the one in force at the earliest on-time
-- event time to the interval's end: var landing_price_files), one partition per snapshot (valid_from: the time in
-- the file's name), so a run (or a rerun) rewrites the snapshots it read and leaves others alone. The DAG runs this
-- only after the snapshot in force at the interval's end has landed.
-- A snapshot is the full price list from its time on. A line is a usable price when it parses
-- (window_tvf.parse_json_lines): item_id as for order events, price a decimal(10,2) of at least 0 (a JSON number or
-- a JSON string holding one, as the producer sends money), valid_from an ISO time with its zone that is the
-- snapshot's own time (else `bad_value:valid_from`); and when its item is on no other usable line of the snapshot
-- with another price (`conflicting_record:item_id`: none of them is used) or with the same price (the first line is
-- used, the copies are `duplicate_record:item_id`). Other lines, and an empty snapshot (`empty_file`), keep their
-- reason and are listed in fct_rejected_item_prices; int_item_prices_in_force says what the join does without them.
{{ config(
    materialized='incremental',
    incremental_strategy='insert_overwrite',
    partition_by=['valid_from'],
) }}

with snapshot_lines as (
    {{ window_tvf.text_file_lines(window_tvf.scheduled_var('landing_price_files')) }}
),

parsed as (
    {{ window_tvf.parse_json_lines(
        'snapshot_lines',
        fields={
            'item_id': {'type': 'string', 'key': true, 'pattern': '[^\\s\\p{Z}\\p{C}]{1,128}'},
            'price': {'type': 'decimal(10,2)', 'numbers_as_text': true, 'min': 0},
            'valid_from': {'type': 'timestamp', 'require_zone': true},
        },
        max_line_bytes=var('max_landing_line_bytes'),
    ) }}
),

in_snapshot as (
    select
        *,
        -- The snapshot's time: 2026-01-01 03:00 UTC from prices_2026-01-01T03.jsonl.
        {{ window_tvf.file_name_time(window_tvf.scheduled_var('landing_price_files'), var('landing_price_file_name')) }} as snapshot_time
    from parsed
),

dated as (
    select
        *,
        case
            when line_number is null then named_struct('code', 'empty_file', 'message', 'empty_file: the snapshot holds no line')
            when reason is not null then named_struct('code', reason, 'message', reason_message)
            when valid_from != snapshot_time then named_struct(
                'code', 'bad_value:valid_from',
                'message', concat(
                    'bad_value:valid_from="', date_format(valid_from, "yyyy-MM-dd'T'HH:mm:ss.SSSSSSXXX"),
                    '": a line of the snapshot of ', date_format(snapshot_time, "yyyy-MM-dd'T'HH:mm:ssXXX"),
                    ' must be valid from that time'
                )
            )
        end as problem
    from in_snapshot
),

-- Per item of a snapshot, among its usable lines: how many, at how many prices, and the first.
copies as (
    select
        *,
        count(*) over snapshot_item as copies,
        size(collect_set(price) over snapshot_item) as prices,
        min(line_number) over snapshot_item as first_line
    from dated
    window snapshot_item as (partition by source_file, case when problem is null then item_id end)
),

checked as (
    select
        *,
        case
            when problem is not null then problem
            when prices > 1 then named_struct(
                'code', 'conflicting_record:item_id',
                'message', concat('conflicting_record:item_id="', item_id, '": the snapshot has ', prices,
                    ' different prices for it, so none is used')
            )
            when line_number > first_line then named_struct(
                'code', 'duplicate_record:item_id',
                'message', concat('duplicate_record:item_id="', item_id, '": the snapshot prices it on line ', first_line,
                    ' already (at the same price), which is used')
            )
        end as rejection
    from copies
)

select
    case when rejection is null then item_id end as item_id,
    case when rejection is null then price end as price,
    source_file,
    line_number,
    case when rejection is not null then line end as line,
    rejection.code as reason,
    rejection.message as reason_message,
    snapshot_time as valid_from
from checked
