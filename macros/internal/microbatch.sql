{#
    dbt's microbatch incremental strategy (dbt 1.9+): dbt builds the model one batch of event time at a time
    ([event_time_start, event_time_end), UTC hours, days, months or years) and filters every upstream relation that
    has an `event_time` to the batch's own range. A window reaches back across the batch start (a HOP by its size, a
    CUMULATE to its period's start, a SESSION to its first event), so that filter cuts windows.

    Inside a batch (dbt sets model.batch), the public window macros therefore:
      1. read their input from the start of the earliest window the batch can hold up to the batch end (plus the
         zone's offset spread and 1 ms), replacing dbt's filter with their own (_batch_input);
      2. keep the windows whose window_time lies in the batch, the time the window's result is complete, so each
         window belongs to exactly one batch and the model's event_time is window_time (_batch_windows);
      3. add the batch-grain partition column the model's partition_by names (window_hour, window_date,
         window_month, window_year: the UTC period of window_time) and fail at compile time on a partitioning
         coarser than the batch, which dbt-spark's insert_overwrite would empty of every other batch's rows.
    The outermost macro of a call does this once (window_aggregate's inner TVF does not filter again).
    Outside a batch (a table, an incremental model, `dbt compile`) nothing changes.
#}

{#- Partition columns the window macros can add in a batch: their grain, in batch_size's terms. -#}
{% macro _batch_partition_columns() %}
    {{ return({'window_hour': 'hour', 'window_date': 'day', 'window_month': 'month', 'window_year': 'year'}) }}
{% endmacro %}

{#-
    The batch this model is being built for, or none: {'start', 'end' (aware UTC datetimes), 'size' (dbt's
    batch_size), 'lookback', 'partition_by' (a list), 'event_time', 'model' (its name)}.
-#}
{% macro _microbatch() %}
    {%- if not execute or model is not mapping or not model.get('batch') -%}{{ return(none) }}{%- endif -%}
    {%- set partition_by = config.get('partition_by') -%}
    {{ return({
        'start': model.batch.event_time_start.astimezone(modules.pytz.utc),
        'end': model.batch.event_time_end.astimezone(modules.pytz.utc),
        'size': config.get('batch_size'),
        'lookback': config.get('lookback', 1),
        'partition_by': ([partition_by] if partition_by is string else (partition_by or [])) | map('lower') | list,
        'event_time': config.get('event_time'),
        'model': model.name,
    }) }}
{% endmacro %}

{#-
    While dbt parses a model, the window specs its window macros are called with (none: an input windowed already)
    go into its meta as window_tvf.windows, where `dbt run-operation window_tvf.rebuild_range` reads how far a
    change of its input reaches. Only the outermost macro of a call notes its windows.
-#}
{% macro _note_windows(specs) %}
    {%- if model is not mapping or config is not defined -%}{{ return(none) }}{%- endif -%}
    {%- set noted = context.get('window_tvf__noted_windows', []) -%}
    {%- do noted.extend(specs) -%}
    {%- do context.update({'window_tvf__noted_windows': noted}) -%}
    {%- do config({'meta': {'window_tvf': {'windows': noted}}}) -%}
{% endmacro %}

{#- Fails at compile time when `macro_name` is called inside a batch, which it cannot be: `why` says why. -#}
{% macro _not_in_microbatch(macro_name, why) %}
    {%- set batch = window_tvf._microbatch() -%}
    {%- if batch is not none -%}
        {{ window_tvf._compile_error("window_tvf." ~ macro_name ~ ": model " ~ batch.model
            ~ " is a microbatch model (incremental_strategy 'microbatch'); " ~ why) }}
    {%- endif -%}
{% endmacro %}


{#-
    Entered by a public window macro before it builds its SQL. `windows`: [[relation, window spec or none], ...],
    one pair per input (none: the input is windowed already). Returns {'active': whether this call handles the
    batch, 'relations': the inputs to read (widened in a batch), 'batch', 'specs'}; pass it to _batch_windows with
    the SQL. Only the outermost window macro of a call is active.
-#}
{% macro _batch_scope(macro_name, windows) %}
    {%- set inactive = {'active': false, 'relations': windows | map('first') | list} -%}
    {%- if context.get('window_tvf__batch_scope') -%}{{ return(inactive) }}{%- endif -%}
    {%- if not execute -%}
        {%- do window_tvf._note_windows(windows | map('last') | list) -%}
        {%- do context.update({'window_tvf__batch_scope': true}) -%}
        {{ return(dict(inactive, noted=true)) }}
    {%- endif -%}
    {%- set batch = window_tvf._microbatch() -%}
    {%- if batch is none -%}{{ return(inactive) }}{%- endif -%}
    {%- set specs = [] -%}
    {%- for relation, window in windows -%}
        {%- do window_tvf._relation(relation, macro_name) -%}
        {%- do specs.append(none if window is none else window_tvf._window_spec(window, macro_name)) -%}
    {%- endfor -%}
    {%- do window_tvf._batch_checks(batch, macro_name, specs) -%}
    {%- set relations = [] -%}
    {%- for relation, window in windows -%}
        {%- do relations.append(window_tvf._batch_input(relation, specs[loop.index0], batch, macro_name)) -%}
    {%- endfor -%}
    {%- do context.update({'window_tvf__batch_scope': true}) -%}
    {{ return({'active': true, 'relations': relations, 'batch': batch, 'specs': specs}) }}
{% endmacro %}

{#-
    `sql` (the macro's SELECT, with a window_time column) as the batch's windows: those whose window_time lies in
    [batch start, batch end), plus the partition columns of _batch_partition_columns that the model's partition_by
    names and the rows do not have yet. `columns`: the SELECT's columns that could already be one (its keys, or the
    input row's columns), or none when they are the input row's and unknown (a CTE): then a macro that made the
    windows adds the partition columns, one that took windowed rows (window=none) expects them in its input.
    Outside a batch, `sql` as is.
-#}
{% macro _batch_windows(scope, sql, columns=none) %}
    {%- if scope.get('noted') -%}{%- do context.update({'window_tvf__batch_scope': false}) -%}{%- endif -%}
    {%- if not scope.active -%}{{ return(sql) }}{%- endif -%}
    {%- do context.update({'window_tvf__batch_scope': false}) -%}
    {%- set batch = scope.batch -%}
    {%- set windowed_here = scope.specs | reject('none') | list | length > 0 -%}
    {%- set added = [] -%}
    {%- for column in batch.partition_by if column in window_tvf._batch_partition_columns() -%}
        {%- if (columns is none and windowed_here) or (columns is not none and column not in (columns | map('lower') | list)) -%}
            {%- do added.append(window_tvf._batch_partition_value(column, 'batch_windows.window_time') ~ ' as ' ~ column) -%}
        {%- endif -%}
    {%- endfor -%}
    {%- set kept -%}
select
    batch_windows.*{% for column in added %},
    {{ column }}{% endfor %}
from (
    {{ sql }}
) as batch_windows
where batch_windows.window_time >= {{ window_tvf._batch_time_literal(batch.start) }}
    and batch_windows.window_time < {{ window_tvf._batch_time_literal(batch.end) }}
    {%- endset -%}
    {{ return(kept) }}
{% endmacro %}

{#- The columns of a macro's output rows that carry the input row (Top-N, deduplication): the input's, when known. -#}
{% macro _batch_row_columns(relation) %}
    {{ return(none if relation is string else window_tvf._known_columns(relation).keys() | list) }}
{% endmacro %}

{#-
    A UTC instant as a string literal, as dbt writes its own event-time filter: compared with a timestamp it is that
    instant; with a timestamp_ntz, that wall time (Spark drops the offset), so batches of a timestamp_ntz column are
    UTC wall-clock periods.
-#}
{% macro _batch_time_literal(instant) -%}
    '{{ instant.astimezone(modules.pytz.utc).strftime('%Y-%m-%d %H:%M:%S.%f') }}+00:00'
{%- endmacro %}

{#- Epoch microseconds of a timestamp, or of a timestamp_ntz's wall time read as UTC (typeof() folds to a constant). -#}
{% macro _batch_utc_micros(time_expr) -%}
    (case when typeof({{ time_expr }}) = 'timestamp_ntz'
        then timestampdiff(microsecond, timestamp_ntz'1970-01-01 00:00:00', {{ time_expr }})
        else unix_micros(cast({{ time_expr }} as timestamp)) end)
{%- endmacro %}

{#- The UTC period (window_hour, window_date, ...) of `time_expr`, a timestamp or timestamp_ntz (its wall time). -#}
{% macro _batch_partition_value(column, time_expr) %}
    {%- set micros = window_tvf._batch_utc_micros(time_expr) -%}
    {%- set day = 'date_from_unix_date(cast((' ~ micros ~ ' - pmod(' ~ micros ~ ', 86400000000L)) div 86400000000L as int))' -%}
    {{ return({
        'window_hour': 'timestamp_micros(' ~ micros ~ ' - pmod(' ~ micros ~ ', 3600000000L))',
        'window_date': day,
        'window_month': "trunc(" ~ day ~ ", 'MM')",
        'window_year': "trunc(" ~ day ~ ", 'YEAR')",
    }[column]) }}
{% endmacro %}


{#-
    The checks a batch makes before building SQL: the model's event_time is window_time, its partitioning is not
    coarser than its batches, and (a warning) its lookback covers the declared lateness.
-#}
{% macro _batch_checks(batch, macro_name, specs) %}
    {%- set prefix = "window_tvf." ~ macro_name ~ ": model " ~ batch.model ~ " is a microbatch model (batch_size '"
        ~ batch.size ~ "')" -%}
    {%- if (batch.event_time or '') | lower != 'window_time' -%}
        {{ window_tvf._compile_error(prefix ~ " whose event_time is " ~ (batch.event_time | tojson)
            ~ "; window_tvf assigns each window to the batch holding its window_time (when its result is complete, "
            ~ "Flink's time attribute of a window), so set event_time='window_time': downstream microbatch models "
            ~ "then filter it by that batch too") }}
    {%- endif -%}
    {%- for spec in specs if spec is not none and spec.tvf == 'dynamic_session' -%}
        {{ window_tvf._compile_error(prefix ~ ": a dynamic_session's gap is computed per row, which leaves no "
            ~ "bound on how far back a batch's sessions reach; use a session window with a fixed gap") }}
    {%- endfor -%}
    {%- set grains = ['hour', 'day', 'month', 'year'] -%}
    {%- set fine = ['window_time', 'window_end'] -%}
    {%- if specs | select('none') | list | length == 0 and specs | rejectattr('tvf', 'in', ['tumble', 'hop']) | list | length == 0 -%}
        {%- do fine.append('window_start') -%}
    {%- endif -%}
    {%- for column, grain in window_tvf._batch_partition_columns().items() if grains.index(grain) <= grains.index(batch.size) -%}
        {%- do fine.append(column) -%}
    {%- endfor -%}
    {%- if not (batch.partition_by | select('in', fine) | list) -%}
        {{ window_tvf._compile_error(prefix ~ " partitioned by " ~ (batch.partition_by | tojson)
            ~ ": dbt-spark writes a batch with insert_overwrite, which replaces every partition the batch writes to, "
            ~ "so a partition holding windows of other batches would lose them. partition_by needs a column at the "
            ~ "batch's grain or finer, which the window macros add: " ~ (fine | join(', '))
            ~ " (window_hour, window_date, window_month, window_year: the UTC hour, date, month or year of "
            ~ "window_time; other columns may follow). Or make batch_size coarser.") }}
    {%- endif -%}
    {%- for spec in specs if spec is not none and spec.get('allowed_lateness') is not none -%}
        {%- do window_tvf._batch_lookback_check(batch, macro_name, spec) -%}
    {%- endfor -%}
{% endmacro %}

{#-
    A run without --event-time-start rebuilds the batches from lookback batches before the current one. Every
    window holding an event has a window_time at or after the event's time less the zone's offset spread, so the
    run recomputes the windows of every event that arrives at most lookback x batch_size - spread after its event
    time (whatever the window's size: its later windows are in later batches, built anyway). Later events that the
    spec's allowed_lateness admits are given up: say which, once per run (in its first batch).
-#}
{% macro _batch_lookback_check(batch, macro_name, spec) %}
    {%- set lateness = window_tvf._lateness_duration(spec.allowed_lateness, macro_name) -%}
    {%- set offsets = window_tvf._batch_zone_offsets(spec, none, macro_name) -%}
    {%- set spread = ((offsets | max) - (offsets | min)) * 1000000 -%}
    {%- set shortest = {'hour': 3600, 'day': 86400, 'month': 28 * 86400, 'year': 365 * 86400}[batch.size] * 1000000 -%}
    {%- set covered = batch.lookback * shortest - spread -%}
    {%- if lateness > covered and window_tvf._is_first_batch(batch) -%}
        {%- set needed = ((lateness + spread + shortest - 1) // shortest) | int -%}
        {%- do exceptions.warn("window_tvf." ~ macro_name ~ ": model " ~ batch.model ~ ": lookback " ~ batch.lookback
            ~ " x batch_size '" ~ batch.size ~ "' recomputes, in a run without --event-time-start, the windows of events "
            ~ "that arrive at most " ~ window_tvf._duration_text(covered) ~ " after their event time"
            ~ (" (the window's zone shifts its clock by up to " ~ window_tvf._duration_text(spread) ~ ")" if spread else "")
            ~ "; allowed_lateness " ~ (spec.allowed_lateness | tojson) ~ " admits events up to "
            ~ window_tvf._duration_text(lateness) ~ " late, so those that arrive between " ~ window_tvf._duration_text(covered)
            ~ " and " ~ window_tvf._duration_text(lateness) ~ " after their event time never reach their windows. "
            ~ "Set lookback to at least " ~ needed ~ ", or run with --event-time-start/--event-time-end covering them "
            ~ "(`dbt run-operation window_tvf.rebuild_range` prints the range).") -%}
    {%- endif -%}
{% endmacro %}

{#- Whether `batch` is the first of this dbt invocation's batches (to say something once per run). -#}
{% macro _is_first_batch(batch) %}
    {%- set start = invocation_args_dict.get('event_time_start') -%}
    {%- if start -%}
        {%- set first = window_tvf._utc_instant(start | string, 'microbatch', 'event_time_start') -%}
    {%- else -%}
        {%- set first = window_tvf._batch_offset(window_tvf._batch_ceiling(run_started_at.astimezone(modules.pytz.utc),
            batch.size), batch.size, -(batch.lookback + 1)) -%}
    {%- endif -%}
    {{ return(window_tvf._batch_floor(first, batch.size) == batch.start) }}
{% endmacro %}

{#- dbt's truncation, ceiling and offset of a UTC time by batch_size (dbt.materializations.incremental.microbatch). -#}
{% macro _batch_floor(instant, size) %}
    {%- set utc = modules.pytz.utc -%}
    {%- if size == 'hour' -%}{{ return(utc.localize(modules.datetime.datetime(instant.year, instant.month, instant.day, instant.hour))) }}
    {%- elif size == 'day' -%}{{ return(utc.localize(modules.datetime.datetime(instant.year, instant.month, instant.day))) }}
    {%- elif size == 'month' -%}{{ return(utc.localize(modules.datetime.datetime(instant.year, instant.month, 1))) }}
    {%- else -%}{{ return(utc.localize(modules.datetime.datetime(instant.year, 1, 1))) }}
    {%- endif -%}
{% endmacro %}

{% macro _batch_ceiling(instant, size) %}
    {%- set floor = window_tvf._batch_floor(instant, size) -%}
    {{ return(floor if floor == instant else window_tvf._batch_offset(floor, size, 1)) }}
{% endmacro %}

{% macro _batch_offset(start, size, count) %}
    {%- if size in ('hour', 'day') -%}
        {{ return(start + modules.datetime.timedelta(hours=count if size == 'hour' else 24 * count)) }}
    {%- endif -%}
    {%- set months = start.year * 12 + start.month - 1 + (count if size == 'month' else 12 * count) -%}
    {{ return(start.replace(year=months // 12, month=months % 12 + 1)) }}
{% endmacro %}

{#- Microseconds as words: '2 hours', '90 minutes', '0 seconds'. -#}
{% macro _duration_text(micros) %}
    {%- set seconds = micros // 1000000 -%}
    {%- for unit, length in [('day', 86400), ('hour', 3600), ('minute', 60), ('second', 1)] -%}
        {%- if seconds % length == 0 and (seconds != 0 or unit == 'second') -%}
            {%- set count = seconds // length -%}
            {{ return(count ~ ' ' ~ unit ~ ('' if count in (1, -1) else 's')) }}
        {%- endif -%}
    {%- endfor -%}
{% endmacro %}


{#-
    The relation to read in a batch: `relation` restricted to what the batch's windows hold, instead of dbt's
    filter to the batch itself. An input that is windowed already (spec none) is read for the batch's window_time;
    a CTE name is read as it is then (it was built in this model, by macros that did their own batch). Otherwise:
    the times from the start of the earliest window that can end in the batch (on the window's wall clock, then as
    an instant less the zone's largest UTC offset) up to the batch end plus the zone's offset spread plus 1 ms (a
    window ending by then is complete: no later row belongs to it). With an arrival_partition in the spec, the
    arrival partitions that can hold those times too (and with allowed_lateness, none after them).
-#}
{% macro _batch_input(relation, spec, batch, macro_name) %}
    {%- if spec is none and relation is string -%}{{ return(relation) }}{%- endif -%}
    {%- set start_micros = window_tvf._batch_micros(batch.start) -%}
    {%- set end_micros = window_tvf._batch_micros(batch.end) -%}
    {%- if spec is none -%}
        {{ return(window_tvf._batch_relation(relation, 'window_time', start_micros, end_micros, none)) }}
    {%- endif -%}
    {%- if relation is string -%}{%- do window_tvf._batch_cte_warning(relation, batch, macro_name) -%}{%- endif -%}
    {%- set offsets = window_tvf._batch_zone_offsets(spec, relation, macro_name) -%}
    {%- set smallest, largest = (offsets | min) * 1000000, (offsets | max) * 1000000 -%}
    {#- A window whose window_time is at or after the batch start ends after this wall time. -#}
    {%- set earliest_end = start_micros + smallest -%}
    {#- Rows of windows ending in the batch: sessions end a gap after any microsecond; the others on whole
        milliseconds (every duration is), so by the batch end on the wall clock. -#}
    {%- set until = end_micros + largest - smallest + (1000 if spec.tvf == 'session' else 0) -%}
    {%- if spec.tvf == 'session' -%}
        {%- set first_wall = window_tvf._batch_session_start(relation, spec, earliest_end, end_micros + largest + 1000,
            until, largest, batch, macro_name) -%}
    {%- else -%}
        {%- set first_wall = window_tvf._batch_first_window_start(spec, earliest_end, macro_name) -%}
    {%- endif -%}
    {{ return(window_tvf._batch_relation(relation, spec.timecol, none if first_wall is none else first_wall - largest,
        until, spec)) }}
{% endmacro %}

{#-
    A CTE the macro windows holds what the model put in it: built on a ref() that has an event_time, dbt filtered it
    to the batch, and windows reaching back across the batch start lose rows. Said once per run when the model reads
    such a relation (it may have been read with ref(...).render(), which is right).
-#}
{% macro _batch_cte_warning(cte, batch, macro_name) %}
    {%- set filtered = [] -%}
    {%- for node_id in model.depends_on.nodes if graph.nodes.get(node_id, graph.sources.get(node_id, {})).get('config', {}).get('event_time') -%}
        {%- do filtered.append(node_id.split('.')[-1]) -%}
    {%- endfor -%}
    {%- if filtered and window_tvf._is_first_batch(batch) -%}
        {%- do exceptions.warn("window_tvf." ~ macro_name ~ ": model " ~ batch.model ~ " windows the CTE " ~ (cte | tojson)
            ~ " in a microbatch batch, and reads " ~ filtered | join(', ') ~ ", which dbt filters to the batch's own "
            ~ "range wherever ref()/source() renders it: a CTE built on that holds only the batch's rows, and windows "
            ~ "reaching back across the batch start would lose rows. Pass the ref() itself to the window macro, or build "
            ~ "the CTE on ref(...).render() (the macro then reads what its windows need from it).") -%}
    {%- endif -%}
{% endmacro %}

{#-
    `relation` read where `time_column` lies in [from, until) (epoch microseconds; from none: no lower bound), plus
    the spec's arrival_partition bounds, as a subquery that the window macros take like the relation itself (its
    columns are the relation's).
-#}
{% macro _batch_relation(relation, time_column, from_micros, until_micros, spec) %}
    {%- set conditions = [] -%}
    {%- if from_micros is not none -%}
        {%- do conditions.append(time_column ~ ' >= ' ~ window_tvf._batch_time_literal(window_tvf._batch_instant(from_micros))) -%}
    {%- endif -%}
    {%- do conditions.append(time_column ~ ' < ' ~ window_tvf._batch_time_literal(window_tvf._batch_instant(until_micros))) -%}
    {%- do conditions.extend(window_tvf._batch_arrival_conditions(relation, spec, from_micros, until_micros)) -%}
    {%- set sql = '(select * from ' ~ (relation if relation is string else relation.render()) ~ ' where '
        ~ conditions | join(' and ') ~ ')' -%}
    {%- set registered = context.get('window_tvf__batch_relations', {}) -%}
    {%- do registered.update({sql: relation}) -%}
    {%- do context.update({'window_tvf__batch_relations': registered}) -%}
    {%- set columns = context.get('window_tvf__known_columns', {}) -%}
    {%- do columns.update({sql: window_tvf._known_columns(relation)}) -%}
    {%- do context.update({'window_tvf__known_columns': columns}) -%}
    {{ return(sql) }}
{% endmacro %}

{#-
    The spec's optional arrival_partition ({'column', 'period'}: the relation is partitioned by the start of the
    period each row arrived in, and no row's time is at or after the end of its arrival period) as conditions on
    that column for times in [from, until): arrival after from - period; with allowed_lateness (no row arrives
    later than its time plus that, counted from its arrival period's start), arrival before until + lateness.
-#}
{% macro _batch_arrival_conditions(relation, spec, from_micros, until_micros) %}
    {%- if spec is none or spec.get('arrival_partition') is none -%}{{ return([]) }}{%- endif -%}
    {%- set arrival = window_tvf._arrival_partition(spec.arrival_partition, 'window spec') -%}
    {%- set conditions = [] -%}
    {%- if from_micros is not none -%}
        {%- do conditions.append(arrival.column ~ ' > ' ~ window_tvf._batch_partition_literal(relation, arrival.column,
            window_tvf._batch_instant(from_micros - arrival.period))) -%}
    {%- endif -%}
    {%- if spec.get('allowed_lateness') is not none -%}
        {%- set lateness = window_tvf._parse_duration(spec.allowed_lateness, 'window spec', 'allowed_lateness') -%}
        {%- do conditions.append(arrival.column ~ ' < ' ~ window_tvf._batch_partition_literal(relation, arrival.column,
            window_tvf._batch_instant(until_micros + lateness), ceiling=true)) -%}
    {%- endif -%}
    {{ return(conditions) }}
{% endmacro %}

{#-
    An instant compared with a partition column: a date column (such as window_date, the UTC day [d, d + 1 day)) gets
    a UTC date, the instant's own for `> instant`, the first at or after it for `< instant` (`ceiling`), which keep
    the same partitions; other columns the instant.
-#}
{% macro _batch_partition_literal(relation, column, instant, ceiling=false) %}
    {%- if window_tvf._known_columns(relation).get(window_tvf._unquoted(column) | lower) == 'date' -%}
        {%- set day = window_tvf._batch_ceiling(instant, 'day') if ceiling else instant -%}
        {{ return("date'" ~ day.astimezone(modules.pytz.utc).strftime('%Y-%m-%d') ~ "'") }}
    {%- endif -%}
    {{ return(window_tvf._batch_time_literal(instant)) }}
{% endmacro %}

{#-
    The UTC offsets (seconds) of the zone whose wall clock the spec's windows are on: none for a timestamp_ntz column
    (batches are UTC wall-clock periods then). A CTE's time column type is unknown: its zone's offsets are used,
    which for a timestamp_ntz only widens the reads.
-#}
{% macro _batch_zone_offsets(spec, relation, macro_name) %}
    {%- set zone = window_tvf._time_zone_argument(spec.get('time_zone'), macro_name) -%}
    {%- if relation is not none -%}
        {%- set axis = window_tvf._time_axis(relation, spec.timecol, spec.get('time_zone'), macro_name) -%}
        {%- if axis.type == 'timestamp_ntz' -%}{{ return([0]) }}{%- endif -%}
        {%- set zone = axis.zone -%}
    {%- elif zone is none -%}
        {%- set zone = window_tvf._session_time_zone() -%}
    {%- endif -%}
    {{ return([0] if window_tvf._is_utc(zone) else window_tvf._zone_rules(zone).offsets) }}
{% endmacro %}

{#- Epoch microseconds of an aware datetime, and back. -#}
{% macro _batch_micros(instant) %}
    {%- set since = instant - modules.datetime.datetime(1970, 1, 1, tzinfo=modules.pytz.utc) -%}
    {{ return((since.days * 86400 + since.seconds) * 1000000 + since.microseconds) }}
{% endmacro %}

{% macro _batch_instant(micros) %}
    {{ return(modules.datetime.datetime(1970, 1, 1, tzinfo=modules.pytz.utc) + modules.datetime.timedelta(microseconds=micros)) }}
{% endmacro %}


{#-
    The wall-clock start (microseconds) of the first tumble, hop or cumulate window that ends after `wall_micros`: a
    window ending after it starts after it minus the size, so the first is one grid step after the grid cell of
    that point (cumulate: the period of the point itself). The same arithmetic as _first_changeable_start, on
    numbers: calendar grids count months from 1970-01.
-#}
{% macro _batch_first_window_start(spec, wall_micros, macro_name) %}
    {%- set grid, size = window_tvf._spec_grid(spec, macro_name) -%}
    {%- if grid.unit == 'micros' -%}
        {%- set point = wall_micros - size -%}
        {{ return(point - (point - grid.offset) % grid.period + grid.period) }}
    {%- endif -%}
    {%- set day = modules.datetime.date(1970, 1, 1) + modules.datetime.timedelta(days=(wall_micros - grid.shift) // 86400000000) -%}
    {%- set point = (day.year - 1970) * 12 + day.month - 1 - size -%}
    {%- set month = point - (point - grid.offset) % grid.period + grid.period -%}
    {%- set first = modules.datetime.date(1970 + month // 12, month % 12 + 1, 1) - modules.datetime.date(1970, 1, 1) -%}
    {{ return(first.days * 86400000000 + grid.shift) }}
{% endmacro %}


{#-
    The wall-clock start (microseconds) of the earliest session the batch can hold, or none (read everything).
    A session is in the batch when its window_time is: then its last event lies in [earliest_end - gap,
    latest_end - gap) on the wall clock. Sessions have no bound on their length, so this asks Spark, at compile
    time: it numbers the sessions of the rows from `from` (a batch and a gap before the first such event) up to
    `until` and takes the earliest start among those sessions. A session whose first row read lies within a gap of
    `from` may have begun before it; then the search starts twice as far back, until no such session is left (or
    before 1900: no lower bound). Each round is one query over the rows it reads; a session as long as the
    longest one open at the batch start costs about twice its reading.
-#}
{% macro _batch_session_start(relation, spec, earliest_end, latest_end, until, largest, batch, macro_name) %}
    {%- set gap = window_tvf._positive_duration(spec.gap, macro_name, 'gap') -%}
    {%- set keys = window_tvf._column_names(spec.get('partition_by'), macro_name, 'partition_by') -%}
    {%- set axis = window_tvf._time_axis(relation, spec.timecol, spec.get('time_zone'), macro_name) -%}
    {%- set first_last, last_last = earliest_end - gap, latest_end - gap -%}
    {%- set reach = namespace(from=first_last - gap - (window_tvf._batch_micros(batch.end) - window_tvf._batch_micros(batch.start))) -%}
    {%- set floor = window_tvf._batch_micros(modules.datetime.datetime(1900, 1, 1, tzinfo=modules.pytz.utc)) -%}
    {%- for round in range(64) -%}
        {%- set rows = window_tvf._batch_relation(relation, spec.timecol, reach.from - largest, until, spec) -%}
        {%- set spans -%}
            select
                {% for key in keys %}{{ key }}, {% endfor -%}
                window_tvf__time,
                window_tvf__time + {{ gap }} as window_tvf__row_end
            from (
                select
                    {% for key in keys %}source_rows.{{ key }}, {% endfor -%}
                    {{ window_tvf._wall_micros(axis, 'source_rows.' ~ spec.timecol) }} as window_tvf__time
                from {{ rows }} as source_rows
                where source_rows.{{ spec.timecol }} is not null
            ) as walled
            where window_tvf__time >= {{ reach.from }}
        {%- endset -%}
        {%- set query -%}
            select
                min(window_tvf__first) as window_tvf__first,
                max(case when window_tvf__first <= {{ reach.from + gap }} then 1 else 0 end) as window_tvf__truncated
            from (
                select min(window_tvf__time) as window_tvf__first, max(window_tvf__time) as window_tvf__last
                from ({{ window_tvf._session_numbers(spans, keys) }}) as numbered
                group by {% for key in keys %}{{ key }}, {% endfor %}window_tvf__session
            ) as sessions
            where window_tvf__last >= {{ first_last }} and window_tvf__last < {{ last_last }}
        {%- endset -%}
        {%- set found = run_query(query).rows[0] -%}
        {%- if not found[1] -%}
            {{ return(first_last if found[0] is none else found[0] | int) }}
        {%- endif -%}
        {%- set reach.from = first_last - 2 * (first_last - reach.from) -%}
        {%- if reach.from < floor -%}{{ return(none) }}{%- endif -%}
    {%- endfor -%}
    {{ return(none) }}
{% endmacro %}
