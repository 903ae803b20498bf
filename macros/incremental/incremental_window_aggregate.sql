{#-
    window_aggregate for an incremental model that processes one data interval per run and overwrites partitions
    by window date (materialized='incremental', incremental_strategy='insert_overwrite',
    partition_by=['window_date']). It returns window_aggregate's columns plus `window_date` (the date of
    window_start, in the session time zone).

    On an incremental run with an `interval_start`, it recomputes exactly the window dates that events arriving in
    the interval can touch (events at most `allowed_lateness` before interval_start; see recompute_from), from
    every event of those dates in `relation`, so late events update their windows and a rerun gives the same rows:
    - tumble, hop, cumulate: events and windows from recompute_from(interval_start, allowed_lateness, size);
    - session: a session never splits at an interval or partition boundary. It recomputes from the earliest date
      of a stored session that a new event could still join (window_end >= interval_start - allowed_lateness),
      and each key's events after its last session stored before that date, which stays as it is.
    Otherwise (first run, full refresh, no interval) it aggregates everything.

    `relation` holds the events to window: only those that are on time (the caller filters late ones out, or they
    would change published windows below the recompute bound).
-#}
{% macro incremental_window_aggregate(relation, window, group_by, aggregates, interval_start, allowed_lateness,
        strategy='auto') %}
    {{ return(adapter.dispatch('incremental_window_aggregate', 'window_tvf')(
        relation, window, group_by, aggregates, interval_start, allowed_lateness, strategy)) }}
{% endmacro %}

{% macro default__incremental_window_aggregate(relation, window, group_by, aggregates, interval_start,
        allowed_lateness, strategy='auto') %}
    {%- set spec = window_tvf._window_spec(window, 'incremental_window_aggregate') -%}
    {%- set relation = window_tvf._relation(relation, 'incremental_window_aggregate') -%}
    {%- if spec.tvf == 'dynamic_session' -%}
        {{ window_tvf._argument_error('incremental_window_aggregate', 'window', window,
            "a dynamic_session's gap depends on each row, so the sessions a late event can join are unbounded; "
            ~ "use tumble, hop, cumulate or session") }}
    {%- endif -%}
    {%- set has_interval = interval_start is not none and interval_start != '' -%}
    {#- Checked on every run, the first included, so a bad argument does not wait for the second run to fail. -#}
    {%- set earliest_event = window_tvf._earliest_on_time(interval_start, allowed_lateness, '0 seconds',
        'incremental_window_aggregate') if has_interval else none -%}
    {%- set aggregated -%}
        {{ window_tvf.window_aggregate('recompute_input', window, group_by, aggregates, strategy=strategy) }}
    {%- endset -%}
    {%- if not (has_interval and is_incremental()) -%}
        {{ return(window_tvf._dated_windows('select * from ' ~ relation, aggregated, none)) }}
    {%- elif spec.tvf != 'session' -%}
        {%- set bound = window_tvf._recompute_bound(interval_start, allowed_lateness, spec.size, 'day',
            'incremental_window_aggregate') -%}
        {%- set recompute_input -%}
            select * from {{ relation }} where {{ spec.timecol }} >= {{ bound }}
        {%- endset -%}
        {{ return(window_tvf._dated_windows(recompute_input, aggregated, bound)) }}
    {%- else -%}
        {{ return(window_tvf._dated_windows(window_tvf._session_recompute_input(relation, spec, earliest_event),
            aggregated, none)) }}
    {%- endif -%}
{% endmacro %}

{#- The windows of `recompute_input`, dated, from `bound` on (none: all of them). -#}
{% macro _dated_windows(recompute_input, aggregated, bound) %}
    with recompute_input as (
        {{ recompute_input }}
    ),

    aggregated as (
        {{ aggregated }}
    )

    select
        *,
        to_date(window_start) as window_date
    from aggregated
    {%- if bound %}
    where window_start >= {{ bound }}
    {%- endif %}
{% endmacro %}

{#-
    The events whose sessions must be recomputed. Stored sessions that end before the earliest time a new on-time
    event can have are final; the first date holding a session that is not final is where recomputing starts
    (whole dates, so insert_overwrite replaces complete partitions). Sessions that start before that date stay;
    for each key only events after the last of them (after its window_end - gap: its last event) are read.
-#}
{% macro _session_recompute_input(relation, spec, earliest_event) %}
    {%- set keys = window_tvf._column_names(spec.get('partition_by'), 'incremental_window_aggregate', 'partition_by') -%}
    {%- set gap = window_tvf._positive_duration(spec.gap, 'incremental_window_aggregate', 'gap') -%}
    with session_bound as (
        -- least() skips NULL: with no stored session to rejoin, the earliest event's day
        select date_trunc('day', least(min(window_start), {{ earliest_event }})) as recompute_from
        from {{ this }}
        where window_end >= {{ earliest_event }}
    ),

    kept_sessions as (
        select
            {%- for key in keys %}
            stored.{{ key }},
            {%- endfor %}
            max(stored.window_end) as last_window_end
        from {{ this }} as stored
        cross join session_bound
        where stored.window_start < session_bound.recompute_from
        {%- if keys %}
        group by {% for key in keys %}stored.{{ key }}{{ ', ' if not loop.last }}{% endfor %}
        {%- endif %}
    )

    select events.*
    from {{ relation }} as events
    cross join session_bound
    left join kept_sessions
        on {% for key in keys %}events.{{ key }} <=> kept_sessions.{{ key }}{{ ' and ' if not loop.last }}{% else %}true{% endfor %}
    where events.{{ spec.timecol }} >= session_bound.recompute_from
        and (
            kept_sessions.last_window_end is null
            or events.{{ spec.timecol }} > {{ window_tvf._plus_micros('kept_sessions.last_window_end', -gap) }}
        )
{% endmacro %}
