{#-
    window_aggregate for an incremental model that processes one data interval per run and overwrites partitions
    by window date (materialized='incremental', incremental_strategy='insert_overwrite',
    partition_by=['window_date']). It returns window_aggregate's columns plus `window_date`: the date of
    window_time (in the session time zone), the instant a window's result is complete, as Flink emits it.

    An incremental run with an `interval_start` rebuilds exactly the windows that events arriving in the interval can
    change, and reads only what that needs. Those events are on time: at or after E = interval_start -
    allowed_lateness. The windows they can change end after E (a session: at or after E, an event exactly one gap
    after a session joins it); every other window is final.
    - The run rewrites the window dates from the date of E on; the final windows of those dates are copied from
      the model itself, the others recomputed from every event they hold:
      tumble, hop: events from E - size; cumulate: events from the start of E's period;
      session: events from the start of the earliest stored session that ends at or after E (or E).
    - `arrival_partition` ({'column': ..., 'period': ...}): when `relation` is stored partitioned by arrival, each
      row in the partition of the period in which it arrived and no row's time later than the end of that period,
      the recompute reads only the partitions that can hold those events, so a run's cost does not grow with
      history. Route rows that break the rule (event times from the future) elsewhere, as late rows.
    Otherwise (first run, full refresh, no interval) it aggregates everything.

    `relation` holds the events to window: only those that are on time (the caller routes late ones elsewhere, or
    they would change final windows).
-#}
{% macro incremental_window_aggregate(relation, window, group_by, aggregates, interval_start, allowed_lateness,
        strategy='auto', arrival_partition=none) %}
    {{ return(adapter.dispatch('incremental_window_aggregate', 'window_tvf')(
        relation, window, group_by, aggregates, interval_start, allowed_lateness, strategy, arrival_partition)) }}
{% endmacro %}

{% macro default__incremental_window_aggregate(relation, window, group_by, aggregates, interval_start,
        allowed_lateness, strategy='auto', arrival_partition=none) %}
    {%- set name = 'incremental_window_aggregate' -%}
    {%- set spec = window_tvf._window_spec(window, name) -%}
    {%- set relation = window_tvf._relation(relation, name) -%}
    {%- if spec.tvf == 'dynamic_session' -%}
        {{ window_tvf._argument_error(name, 'window', window,
            "a dynamic_session's gap depends on each row, so the sessions a late event can join are unbounded; "
            ~ "use tumble, hop, cumulate or session") }}
    {%- endif -%}
    {%- set arrival = window_tvf._arrival_partition(arrival_partition, name) -%}
    {%- set has_interval = interval_start is not none and interval_start != '' -%}
    {#- Checked on every run, the first included, so a bad argument does not wait for the second run to fail. -#}
    {%- set earliest = window_tvf._earliest_on_time(interval_start, allowed_lateness, '0 seconds', name)
        if has_interval else none -%}
    {%- set aggregated -%}
        {{ window_tvf.window_aggregate('recompute_input', window, group_by, aggregates, strategy=strategy) }}
    {%- endset -%}
    {%- if not (has_interval and is_incremental()) -%}
        {{ return(window_tvf._dated_windows('select * from ' ~ relation, aggregated)) }}
    {%- endif -%}
    {%- set earliest_sql = window_tvf._instant_literal(earliest) -%}
    {%- set first_date = 'to_date(' ~ window_tvf._instant_literal(earliest - modules.datetime.timedelta(milliseconds=1)) ~ ')' -%}
    {%- if spec.tvf == 'session' -%}
        {%- set changeable = 'window_end >= ' ~ earliest_sql -%}
        {%- set read_from -%}
            (select least(min(window_start), {{ earliest_sql }}) from {{ this }}
             where window_date >= {{ first_date }} and {{ changeable }})
        {%- endset -%}
    {%- else -%}
        {%- set changeable = 'window_end > ' ~ earliest_sql -%}
        {%- set read_from = window_tvf._window_read_from(spec, earliest, name) -%}
    {%- endif -%}
    {%- set recompute_input -%}
        select * from {{ relation }} where {{ spec.timecol }} >= {{ read_from }}
        {%- if arrival %}
            and {{ arrival.column }} > {{ window_tvf._plus_micros(read_from, -arrival.period) }}
        {%- endif %}
    {%- endset -%}
    {%- set columns = ['window_start', 'window_end', 'window_time']
        + window_tvf._column_names(group_by, name, 'group_by') + (aggregates.keys() | list) -%}
    {%- set final_windows -%}
        select {{ (columns + ['window_date']) | join(', ') }} from {{ this }}
        where window_date >= {{ first_date }} and not ({{ changeable }})
    {%- endset -%}
    {{ return(window_tvf._dated_windows(recompute_input, aggregated, columns, changeable, final_windows)) }}
{% endmacro %}

{#-
    Where a tumble, hop or cumulate recompute reads events from, for windows that end after `earliest`: a window
    ending after it starts after earliest - size (tumble, hop); a cumulate window starts at its period's start.
-#}
{% macro _window_read_from(spec, earliest, macro_name) %}
    {%- set size = window_tvf._positive_duration(spec.size, macro_name, 'size') -%}
    {%- if spec.tvf != 'cumulate' -%}
        {{ return(window_tvf._instant_literal(earliest - modules.datetime.timedelta(microseconds=size))) }}
    {%- endif -%}
    {%- set offset = window_tvf._offset_duration(spec.get('offset'), macro_name) -%}
    {%- set literal = window_tvf._instant_literal(earliest) -%}
    {{ return(window_tvf._time_at(
        '(' ~ window_tvf._grid_floor(window_tvf._epoch_micros(literal), size, offset) ~ ')', literal)) }}
{% endmacro %}

{#- The arrival_partition argument checked: {column, period in microseconds}, or none. -#}
{% macro _arrival_partition(value, macro_name) %}
    {%- if value is none -%}{{ return(none) }}{%- endif -%}
    {%- if value is not mapping or value.keys() | sort != ['column', 'period'] -%}
        {{ window_tvf._argument_error(macro_name, 'arrival_partition', value,
            "expected none or {'column': <the arrival partition column>, 'period': <its length, e.g. '1 hour'>}") }}
    {%- endif -%}
    {{ return({'column': window_tvf._column_name(value.column, macro_name, 'arrival_partition'),
        'period': window_tvf._positive_duration(value.period, macro_name, 'arrival_partition')}) }}
{% endmacro %}

{#-
    The windows of `recompute_input` with their window_date; on an incremental run only those `changeable`, plus the
    final windows of the rewritten dates, so insert_overwrite replaces whole partitions and loses none.
-#}
{% macro _dated_windows(recompute_input, aggregated, columns=none, changeable=none, final_windows=none) %}
    with recompute_input as (
        {{ recompute_input }}
    ),

    aggregated as (
        {{ aggregated }}
    )

    select
        {{ (columns or ['*']) | join(', ') }},
        to_date(window_time) as window_date
    from aggregated
    {%- if changeable %}
    where {{ changeable }}

    union all

    {{ final_windows }}
    {%- endif %}
{% endmacro %}
