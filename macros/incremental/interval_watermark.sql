{#
    The watermark of a scheduled run, for window_aggregate's `watermark` (docs/final_windows.md): the interval's end
    less the allowed lateness, less 1 ms, as an ISO 8601 UTC time; none when no interval is given (a build outside
    the schedule: window_aggregate then derives the watermark from the data).

    It is the watermark incremental_window_aggregate derives from its interval_end: a run of the interval that
    ends at interval_end has every event whose time is at or after interval_end - allowed_lateness still to come
    (the next run's on-time events), so a window is final when window_time (window_end - 1 ms) lies before that,
    window_time <= interval_end - allowed_lateness - 1 ms (a session: <). A dbt microbatch model passes it with the
    interval's vars, so its batches flag the same windows final as the insert_overwrite model of the same interval.
#}
{% macro interval_watermark(interval_end, allowed_lateness) %}
    {%- if interval_end is none or interval_end == '' -%}
        {{ return(none) }}
    {%- endif -%}
    {%- set lateness = window_tvf._lateness_duration(allowed_lateness, 'interval_watermark') -%}
    {%- set end = window_tvf._utc_instant(interval_end, 'interval_watermark', 'interval_end') -%}
    {%- set watermark = end - modules.datetime.timedelta(microseconds=lateness + 1000) -%}
    {{ return(watermark.strftime('%Y-%m-%dT%H:%M:%S.%f') ~ 'Z') }}
{% endmacro %}
