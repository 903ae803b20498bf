{#-
    The earliest time an incremental windowed model must recompute from when it processes the data interval that
    starts at `interval_start`, as a SQL timestamp expression (or none: recompute everything).

    Events that arrive in the interval are on time when their event time is at most `allowed_lateness` before the
    interval starts, so they lie at or after `interval_start - allowed_lateness`; the windows they touch start
    after that minus `window_size` (the largest window: a HOP's size, a CUMULATE's max size). Rounded down to the
    start of the partition (`partition_granularity`, in the session time zone, like `to_date(window_start)`), so
    that an `insert_overwrite` by window date rewrites whole partitions from complete input.

    A model keeps events with `timecol >= <bound>` and windows with `window_start >= <bound>`: every window it
    writes then saw all of its events, and no partition it overwrites loses a window.
-#}
{% macro recompute_from(interval_start, allowed_lateness, window_size, partition_granularity='day') %}
    {{ return(adapter.dispatch('recompute_from', 'window_tvf')(
        interval_start, allowed_lateness, window_size, partition_granularity)) }}
{% endmacro %}

{% macro default__recompute_from(interval_start, allowed_lateness, window_size, partition_granularity='day') %}
    {%- if interval_start is none or interval_start == '' -%}
        {{ return(none) }}
    {%- endif -%}
    {{ return(window_tvf._recompute_bound(interval_start, allowed_lateness, window_size, partition_granularity,
        'recompute_from')) }}
{% endmacro %}

{#- recompute_from's bound, with errors in the name of the macro the user called. -#}
{% macro _recompute_bound(interval_start, allowed_lateness, window_size, partition_granularity, macro_name) %}
    {%- set units = ['hour', 'day', 'week', 'month', 'year'] -%}
    {%- if partition_granularity not in units -%}
        {{ window_tvf._argument_error(macro_name, 'partition_granularity', partition_granularity,
            "expected one of " ~ units | join(', ') ~ " (the unit the model's partition column truncates to)") }}
    {%- endif -%}
    {%- set earliest = window_tvf._earliest_on_time(interval_start, allowed_lateness, window_size, macro_name) -%}
    {{ return("date_trunc('" ~ partition_granularity ~ "', " ~ window_tvf._instant_literal(earliest) ~ ")") }}
{% endmacro %}

{#- interval_start - allowed_lateness - window_size, as an aware UTC datetime. -#}
{% macro _earliest_on_time(interval_start, allowed_lateness, window_size, macro_name) %}
    {%- set start = window_tvf._utc_instant(interval_start, macro_name, 'interval_start') -%}
    {%- set lateness = window_tvf._lateness_duration(allowed_lateness, macro_name) -%}
    {%- set size = window_tvf._parse_duration(window_size, macro_name, 'window_size') -%}
    {%- if size < 0 -%}
        {{ window_tvf._argument_error(macro_name, 'window_size', window_size,
            "it must be zero (sessions, plain events) or the largest window's size, e.g. '1 day'") }}
    {%- endif -%}
    {{ return(start - modules.datetime.timedelta(microseconds=lateness + size)) }}
{% endmacro %}
