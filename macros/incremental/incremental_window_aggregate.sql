{#-
    window_aggregate for an incremental model that processes one data interval per run and overwrites partitions
    by window date (materialized='incremental', incremental_strategy='insert_overwrite',
    partition_by=['window_date']). It returns window_aggregate's columns plus `window_date`: the date of
    window_time (in the session time zone), the instant a window's result is complete, as Flink emits it.

    An incremental run with an `interval_start` rebuilds exactly the windows that events arriving in the interval can
    change, and reads only what that needs. Those events are on time: at or after the instant E = interval_start -
    allowed_lateness. Windows are on a zone's wall clock, where such an event shows at or after W = E plus the zone's
    smallest UTC offset (W = E in UTC; earlier than E's own wall time when a fall-back hour follows E). The windows
    they can change end after W (a session: at or after W, an event exactly one gap after a session joins it); every
    other window is final.
    - The run rewrites the window dates from the date of E minus the zone's offset spread on (a changeable window's
      window_time is no earlier); the final windows of those dates are copied from the model itself, the others
      recomputed from every event they hold: tumble, hop: from the first window that ends after W; cumulate: from
      the start of W's period (a month, for a month-to-date); session: from the start of the earliest stored session
      that ends at or after W (or W). A wall-clock bound is read as the instant of it minus the zone's largest offset.
    - `arrival_partition` ({'column': ..., 'period': ...}): when `relation` is stored partitioned by arrival, each
      row in the partition of the period in which it arrived and no row's time later than the end of that period,
      the recompute reads only the partitions that can hold those events, so a run's cost does not grow with
      history. Route rows that break the rule (event times from the future) elsewhere, as late rows.
    - `input_window_size` (a window cascade): `relation` holds the windows of another aggregation, timed by their
      window_time (or window_start), none longer than this on this window's clock. An interval's events change
      input rows timed up to one input window before themselves (by window_start; by window_time, up to the zone's
      offset spread), so the input rows count as late by allowed_lateness + input_window_size + the offset spread.
    Otherwise (first run, full refresh, no interval) it aggregates everything.
    - `emit` (macros/internal/finality.sql): 'on_update_flagged' adds is_final, 'on_window_close' writes only the
      final windows. The watermark is the interval's: with `interval_end` (the data interval's end, arrival time),
      a window is final when no later interval can rewrite it, i.e. when it is not changeable for a run whose
      interval starts at interval_end (UTC: window_time <= interval_end - allowed_lateness - 1 ms; a session's
      window_time below it); a window stored as final stays final (a rerun of an older interval flags no less).
      Without an interval (a full build): the largest time in `relation` less allowed_lateness (and, for a
      cascade, less input_window_size and the zone's offset spread), Flink's rule on window_time.

    `relation` holds the events to window: only those that are on time (the caller routes late ones elsewhere, or
    they would change final windows).
-#}
{% macro incremental_window_aggregate(relation, window, group_by, aggregates, interval_start, allowed_lateness,
        strategy='auto', arrival_partition=none, input_window_size=none, window_partition='day', emit='on_update',
        interval_end=none) %}
    {%- do window_tvf._not_in_microbatch('incremental_window_aggregate', "dbt gives each batch its event-time range, "
        ~ "so use window_tvf.window_aggregate, which reads what the batch's windows need and keeps those whose "
        ~ "window_time lies in the batch (interval_start and allowed_lateness belong to insert_overwrite models)") -%}
    {{ return(adapter.dispatch('incremental_window_aggregate', 'window_tvf')(
        relation, window, group_by, aggregates, interval_start, allowed_lateness, strategy, arrival_partition,
        input_window_size, window_partition, emit, interval_end)) }}
{% endmacro %}

{% macro default__incremental_window_aggregate(relation, window, group_by, aggregates, interval_start,
        allowed_lateness, strategy='auto', arrival_partition=none, input_window_size=none, window_partition='day',
        emit='on_update', interval_end=none) %}
    {%- set name = 'incremental_window_aggregate' -%}
    {%- set spec = window_tvf._window_spec(window, name) -%}
    {%- set relation = window_tvf._relation(relation, name) -%}
    {%- if spec.tvf == 'dynamic_session' -%}
        {{ window_tvf._argument_error(name, 'window', window,
            "a dynamic_session's gap depends on each row, so the sessions a late event can join are unbounded; "
            ~ "use tumble, hop, cumulate or session") }}
    {%- endif -%}
    {%- set arrival = window_tvf._arrival_partition(arrival_partition, name) -%}
    {%- set input_span = 0 if input_window_size is none
        else window_tvf._positive_duration(input_window_size, name, 'input_window_size') -%}
    {%- set partition = window_tvf._stored_partition(window_partition, name) -%}
    {%- set has_interval = interval_start is not none and interval_start != '' -%}
    {#- Checked on every run, the first included, so a bad argument does not wait for the second run to fail. -#}
    {%- set earliest = window_tvf._earliest_on_time(interval_start, allowed_lateness, '0 seconds', name)
        if has_interval else none -%}
    {#- window_tvf__recompute_input (the CTE _dated_windows writes) filters the relation: its aggregates' types are the relation's
        (types.sql); its shuffle is not estimated (the relation holds every interval's rows). -#}
    {%- set typed_as = context.get('window_tvf__types_of', {}) -%}
    {%- do typed_as.update({'window_tvf__recompute_input': relation}) -%}
    {%- do context.update({'window_tvf__types_of': typed_as}) -%}
    {%- set aggregated -%}
        {{ window_tvf.window_aggregate('window_tvf__recompute_input', window, group_by, aggregates, strategy=strategy) }}
    {%- endset -%}
    {%- set emit = window_tvf._emit_argument(emit, name) -%}
    {%- set final = window_tvf._incremental_final(spec, relation, emit, interval_start, interval_end, allowed_lateness,
        input_span, name) -%}
    {%- if not (has_interval and is_incremental()) -%}
        {{ return(window_tvf._emitted(window_tvf._dated_windows('select * from ' ~ relation, aggregated, partition),
            emit, final)) }}
    {%- endif -%}
    {%- set bounds = window_tvf._recompute_bounds(spec, relation, earliest, name) -%}
    {%- if input_span -%}
        {#- input rows are windows: the earliest one an on-time event changes is timed an input window earlier -#}
        {%- set earliest = earliest - modules.datetime.timedelta(microseconds=input_span + bounds.offset_spread) -%}
        {%- set bounds = window_tvf._recompute_bounds(spec, relation, earliest, name) -%}
    {%- endif -%}
    {%- set first_partition = partition.of_time.replace('{}', window_tvf._instant_literal(earliest - modules.datetime.timedelta(
        microseconds=bounds.offset_spread + 1000))) -%}
    {%- set rewritten = partition.column ~ ' >= ' ~ first_partition -%}
    {%- if spec.tvf == 'session' -%}
        {%- set changeable = 'window_end >= ' ~ bounds.earliest_wall -%}
        {%- set read_from = window_tvf._time_from_wall(bounds,
            window_tvf._earliest_changeable_session(rewritten, changeable, bounds.earliest_micros)) -%}
    {%- else -%}
        {%- set changeable = 'window_end > ' ~ bounds.earliest_wall -%}
        {%- set read_from = window_tvf._time_from_wall(bounds, window_tvf._first_changeable_start(spec, bounds.earliest_micros, name)) -%}
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
        select {{ (columns + partition.columns) | join(', ') }} from {{ this }}
        where {{ rewritten }} and not ({{ changeable }})
    {%- endset -%}
    {%- if emit != 'on_update' -%}
        {#- A window stored as final stays final: every window ending no later than one stored as final is final
            (finality only grows with window_end), so a rerun of an older interval flags no fewer windows. -#}
        {%- set final -%}
            ({{ final }} or finality.window_end <= (select max(window_end) from {{ this }}
                where {{ rewritten }}{{ ' and is_final' if emit == 'on_update_flagged' }}))
        {%- endset -%}
    {%- endif -%}
    {{ return(window_tvf._emitted(window_tvf._dated_windows(recompute_input, aggregated, partition, columns,
        changeable, final_windows), emit, final)) }}
{% endmacro %}

{#-
    The wall-clock start (microseconds, a number) of the earliest stored session a run can change: the earliest
    that ends at or after the recompute's bound (`changeable`) in the partitions it rewrites, or the bound itself.
    Read when the model runs, so the recompute's filter on the relation is a literal, which every table format
    prunes by (Iceberg and Delta plan their files before a scalar subquery has a value: a subquery bound made the
    sessions read every arrival hour there, docs/table_formats.md).
-#}
{% macro _earliest_changeable_session(rewritten, changeable, earliest_micros) %}
    {%- if not execute -%}{{ return(earliest_micros) }}{%- endif -%}
    {%- set query -%}
        select timestampdiff(microsecond, timestamp_ntz'1970-01-01 00:00:00', min(window_start))
        from {{ this }}
        where {{ rewritten }} and {{ changeable }}
    {%- endset -%}
    {%- set earliest = run_query(query).columns[0].values()[0] -%}
    {{ return(earliest_micros if earliest is none else [earliest | int, earliest_micros] | min) }}
{% endmacro %}

{#-
    The condition (on finality.window_time, finality.window_end) that a window is final, or none for emit
    'on_update'. With interval_end: not changeable for the run of the interval that starts there (the recompute's
    own bounds, _recompute_bounds, so exactly the windows no later interval rewrites). Without an interval: the
    largest time in the relation less the lateness (a cascade's input rows less input_window_size and the spread).
-#}
{% macro _incremental_final(spec, relation, emit, interval_start, interval_end, allowed_lateness, input_span, macro_name) %}
    {%- set has_end = interval_end is not none and interval_end != '' -%}
    {%- if emit == 'on_update' -%}
        {%- if has_end -%}
            {{ window_tvf._argument_error(macro_name, 'interval_end', interval_end,
                "interval_end sets the watermark that decides which windows are final, and emit 'on_update' (the "
                ~ "default) emits every window unflagged; set emit='on_update_flagged' or 'on_window_close', or leave "
                ~ "interval_end unset") }}
        {%- endif -%}
        {{ return(none) }}
    {%- endif -%}
    {%- if not has_end and (emit == 'on_window_close' or (interval_start is not none and interval_start != '')) -%}
        {{ window_tvf._argument_error(macro_name, 'interval_end', interval_end,
            "emit " ~ (emit | tojson) ~ (" with an interval_start" if emit == 'on_update_flagged' else "")
            ~ " needs the data interval's end (Airflow's data_interval_end) on every run, the first included: the "
            ~ "watermark is interval_end - allowed_lateness, so that every window a run leaves provisional"
            ~ (" (and does not write)" if emit == 'on_window_close' else "") ~ " is one the next interval rewrites") }}
    {%- endif -%}
    {%- set session = spec.tvf == 'session' -%}
    {%- set lateness = window_tvf._lateness_duration(allowed_lateness, macro_name) -%}
    {%- if has_end -%}
        {%- set earliest = window_tvf._utc_instant(interval_end, macro_name, 'interval_end')
            - modules.datetime.timedelta(microseconds=lateness) -%}
        {%- set bounds = window_tvf._recompute_bounds(spec, relation, earliest, macro_name) -%}
        {%- if input_span -%}
            {%- set bounds = window_tvf._recompute_bounds(spec, relation, earliest
                - modules.datetime.timedelta(microseconds=input_span + bounds.offset_spread), macro_name) -%}
        {%- endif -%}
        {{ return('finality.window_end ' ~ ('<' if session else '<=') ~ ' ' ~ bounds.earliest_wall) }}
    {%- endif -%}
    {%- set spread = window_tvf._recompute_bounds(spec, relation, modules.datetime.datetime(2000, 1, 1,
        tzinfo=modules.pytz.utc), macro_name).offset_spread if input_span else 0 -%}
    {%- set watermark = window_tvf._plus_micros('(select max(' ~ spec.timecol ~ ') from ' ~ relation ~ ')',
        -(lateness + input_span + spread)) -%}
    {{ return(window_tvf._final_condition(spec, watermark, 'finality.')) }}
{% endmacro %}

{#-
    The recompute's bounds on the wall clock the windows are on. Events on time lie at or after the instant E; the
    earliest wall-clock time such an event can show is E plus the zone's smallest UTC offset (a fall-back hour shows
    later instants at earlier wall times), so the windows an on-time event can change end after that wall time
    (`earliest_wall`, a timestamp_ntz literal; `earliest_micros`, its microseconds). _time_from_wall turns a wall-clock
    lower bound into one on the time column: every row whose wall time is at or after it has a time at or after it
    minus the zone's largest offset (`largest_offset`, none for a timestamp_ntz column). `offset_spread`: largest minus smallest offset, in microseconds. A
    timestamp_ntz column is compared with instants in the session zone, so its bounds use that zone. Offsets are
    those of the zone's rules from 1970 to 2100, read from Spark.
-#}
{% macro _recompute_bounds(spec, relation, earliest, macro_name) %}
    {%- set axis = window_tvf._time_axis(relation, spec.timecol, spec.get('time_zone'), macro_name) -%}
    {%- set zone = window_tvf._session_time_zone() if axis.type == 'timestamp_ntz' else axis.zone -%}
    {%- set offsets = [0] if window_tvf._is_utc(zone) else window_tvf._zone_rules(zone).offsets -%}
    {%- set since_epoch = earliest - modules.datetime.datetime(1970, 1, 1, tzinfo=modules.pytz.utc) -%}
    {%- set micros = (since_epoch.days * 86400 + since_epoch.seconds) * 1000000 + since_epoch.microseconds
        + (offsets | min) * 1000000 -%}
    {%- set wall = modules.datetime.datetime(1970, 1, 1) + modules.datetime.timedelta(microseconds=micros) -%}
    {%- set largest = (offsets | max) * 1000000 -%}
    {{ return({'earliest_wall': "timestamp_ntz'" ~ wall.strftime('%Y-%m-%d %H:%M:%S.%f') ~ "'",
        'earliest_micros': micros, 'offset_spread': largest - (offsets | min) * 1000000,
        'largest_offset': none if axis.type == 'timestamp_ntz' else largest}) }}
{% endmacro %}

{#- A lower bound on the time column from one on the wall clock (microseconds): see _recompute_bounds. -#}
{% macro _time_from_wall(bounds, micros) -%}
    {%- if bounds.largest_offset is none -%}
        {{ window_tvf._timestamp_ntz_of_micros(micros) }}
    {%- else -%}
        timestamp_micros({{ micros }} - {{ bounds.largest_offset }})
    {%- endif -%}
{%- endmacro %}

{#-
    The wall-clock start (microseconds, a constant SQL expression) of the first tumble, hop or cumulate window that
    ends after `wall_micros`: a window ending after it starts after it minus the size, so the first is one grid step
    after the grid cell of that point (tumble and cumulate: the cell holding the point itself). Calendar grids count
    in months.
-#}
{% macro _first_changeable_start(spec, wall_micros, macro_name) %}
    {%- set grid, size = window_tvf._spec_grid(spec, macro_name) -%}
    {%- set position = '(' ~ window_tvf._grid_position(grid, wall_micros ~ 'L') ~ ' - ' ~ size ~ ')' -%}
    {{ return(window_tvf._grid_wall(grid, '(' ~ window_tvf._grid_cell_start(grid, position) ~ ' + ' ~ grid.period ~ ')')) }}
{% endmacro %}

{#-
    The window_partition argument checked: the model's partition column and its value from window_time
    ('day': window_date, the date of window_time; 'hour': window_hour, its hour, beside window_date), as
    {'column', 'of_time': SQL of window_time's partition, with {} for the time, 'columns': the columns added}.
-#}
{% macro _stored_partition(value, macro_name) %}
    {%- if value == 'day' -%}
        {{ return({'column': 'window_date', 'of_time': 'to_date({})', 'columns': ['window_date']}) }}
    {%- elif value == 'hour' -%}
        {{ return({'column': 'window_hour', 'of_time': "date_trunc('hour', {})", 'columns': ['window_date', 'window_hour']}) }}
    {%- endif -%}
    {{ window_tvf._argument_error(macro_name, 'window_partition', value, "expected 'day' (partition_by=['window_date']) "
        ~ "or 'hour' (partition_by=['window_hour']: a run rewrites the hours its interval can change, not whole days)") }}
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
    The windows of `window_tvf__recompute_input` with their partition columns (window_date, and window_hour by hour); on an
    incremental run only those `changeable`, plus the final windows of the rewritten partitions, so insert_overwrite
    replaces whole partitions and loses none.
-#}
{% macro _dated_windows(recompute_input, aggregated, partition, columns=none, changeable=none, final_windows=none) %}
    {%- call window_tvf._self_contained('incremental_window_aggregate') %}
    with window_tvf__recompute_input as (
        {{ recompute_input }}
    ),

    window_tvf__aggregated as (
        {{ aggregated }}
    )

    select
        {{ (columns or ['*']) | join(', ') }},
        to_date(window_time) as window_date
        {%- if 'window_hour' in partition.columns %},
        date_trunc('hour', window_time) as window_hour
        {%- endif %}
    from window_tvf__aggregated
    {%- if changeable %}
    where {{ changeable }}

    union all

    {{ final_windows }}
    {%- endif %}
    {%- endcall %}
{% endmacro %}
