-- Empty CSV fields must load as NULL (dbt-spark's session binding loads them as the string 'None'; the project's
-- spark__load_csv_rows override fixes that), and microseconds must survive the load.
with observed as (
    select
        count_if(event_time is null) as null_times,
        count_if(partition_key is null) as null_keys,
        count_if(partition_key = 'None') as none_strings,
        count_if(event_time = timestamp'2020-04-15 08:30:00.000001') as microsecond_times
    from {{ ref('edge_events') }}
)

select *
from observed
where null_times != 2 or null_keys != 26 or none_strings != 0 or microsecond_times != 1
