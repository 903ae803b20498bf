-- A timestamp_ntz time column gives timestamp_ntz window columns, on the same windows.
with events as (
    select event_id, cast(event_time as timestamp_ntz) as event_time
    from {{ ref('edge_events') }}
    where case_name = 'tumble_edges'
),

windowed as (
    {{ window_tvf.tumble('events', 'event_time', '10 minutes') }}
),

actual as (
    select
        'tumble_edges' as case_name,
        event_id,
        cast(window_start as timestamp) as window_start,
        cast(window_end as timestamp) as window_end,
        cast(window_time as timestamp) as window_time
    from windowed
),

expected as (
    select * from {{ ref('expected_edge_windows') }} where case_name = 'tumble_edges'
),

wrong_types as (
    select 'type is not timestamp_ntz' as diff, 'tumble_edges' as case_name, event_id, window_start, window_end, window_time
    from (
        select
            event_id,
            cast(window_start as timestamp) as window_start,
            cast(window_end as timestamp) as window_end,
            cast(window_time as timestamp) as window_time,
            typeof(window_start) as start_type,
            typeof(window_end) as end_type,
            typeof(window_time) as time_type
        from windowed
    ) as typed
    where start_type != 'timestamp_ntz' or end_type != 'timestamp_ntz' or time_type != 'timestamp_ntz'
)

select * from wrong_types
union all
{{ window_tvf.rowset_diff('actual', 'expected', ['case_name', 'event_id', 'window_start', 'window_end', 'window_time']) }}
