{#
    Gap filling over window results (TimescaleDB's time_bucket_gapfill with locf() and interpolate()): every window
    of the window spec's grid within the series' range, for every key, with the windows the input lacks added and
    filled per column. Output: window_start, window_end, window_time, the keys, the input's other columns (filled),
    the batch partition columns the input had, and `filled_column` (true on the added rows). docs/gap_fill.md.

    relation:      window results (window_aggregate's output, or a TVF aggregated by the model): window_start,
                   window_end, window_time, the keys, the values
    window:        the spec the windows were made with (tumble, hop, cumulate; 'timecol' may be left out)
    group_by:      key column(s); none for one series
    fill:          {column: 0 | 'null' | 'locf' | {'locf': N windows or 'duration'} | 'interpolate' | 'previous'
                   | {'constant': 'sql expression'}}; columns not named are NULL on added rows
    start, end:    the range: windows whose window_time lies in [start, end) (a wall time in the windows' zone,
                   an ISO time with an offset, or a SQL expression); none: the keys' own or the data's bounds
    keys_from:     a relation holding the keys (a dimension): every one of its keys gets the whole range
    span:          'key' (each key from its first window to its last, or to `end`), 'data' (every key from the
                   data's first window to its last); default 'key', 'data' with keys_from
    filled_column: the name of the boolean column marking added rows
#}
{% macro window_gap_fill(relation, window, group_by=none, fill=none, start=none, end=none, keys_from=none,
        span=none, filled_column='is_filled') %}
    {%- set scope = window_tvf._batch_scope('window_gap_fill', [[relation, none]]) -%}
    {%- set sql, columns = window_tvf._gap_fill_sql(relation, scope, window, group_by, fill, start, end, keys_from,
        span, filled_column) -%}
    {{ return(window_tvf._batch_windows(scope, sql, columns)) }}
{% endmacro %}


{#- The checked spec: the grids its windows lie on, and which integer numbers them (see _gap_fill_walls). -#}
{% macro _gap_fill_spec(window) %}
    {%- if window is mapping and window.get('tvf') in ('session', 'dynamic_session') -%}
        {{ window_tvf._argument_error('window_gap_fill', 'window', window,
            "a " ~ window.tvf ~ " window has no grid: its windows start at rows, so there are no missing windows to "
            ~ "add; gap filling takes tumble, hop and cumulate windows") }}
    {%- endif -%}
    {%- set spec = dict(window) if window is mapping else window -%}
    {%- if spec is mapping and 'timecol' not in spec -%}{%- do spec.update({'timecol': 'window_time'}) -%}{%- endif -%}
    {%- set spec = window_tvf._window_spec(spec, 'window_gap_fill') -%}
    {%- set grid, size = window_tvf._spec_grid(spec, 'window_gap_fill') -%}
    {%- if spec.tvf == 'cumulate' -%}
        {#- A cumulate window is named by its end: one per step of the step grid (the step divides the period). -#}
        {%- set step_span = window_tvf._cumulate_spans(spec.step, spec.size, 'window_gap_fill')[0] -%}
        {%- set series = window_tvf._cumulate_step_grid(grid, step_span) -%}
    {%- else -%}
        {%- set series = grid -%}
    {%- endif -%}
    {{ return({'tvf': spec.tvf, 'grid': grid, 'size': size, 'series': series, 'time_zone': spec.get('time_zone')}) }}
{% endmacro %}

{#- Wall-clock microseconds of the start and end of the window numbered `index` (SQL). -#}
{% macro _gap_fill_walls(spec, index) %}
    {%- set series = spec.series -%}
    {%- set position = '(' ~ index ~ ' * ' ~ series.period ~ ' + ' ~ series.offset ~ ')' -%}
    {%- if spec.tvf == 'cumulate' -%}
        {%- set period = window_tvf._cumulate_period(spec.grid, series, '(' ~ position ~ ' - ' ~ series.period ~ ')') -%}
        {{ return({'start': window_tvf._grid_wall(spec.grid, period.start), 'end': window_tvf._grid_wall(series, position)}) }}
    {%- endif -%}
    {{ return({'start': window_tvf._grid_wall(series, position),
        'end': window_tvf._grid_wall(series, position ~ ' + ' ~ spec.size)}) }}
{% endmacro %}

{#- The number of the series-grid cell holding wall-clock microseconds `wall` (SQL). -#}
{% macro _gap_fill_cell(spec, wall) -%}
    {%- set position = window_tvf._grid_position(spec.series, wall) -%}
    (({{ window_tvf._grid_floor(position, spec.series.period, spec.series.offset) }}) - {{ spec.series.offset }}) div {{ spec.series.period }}
{%- endmacro %}

{#-
    How many windows beyond a bound's cell can still have their window_time on the bound's side: a hop's windows per
    size, the zone's offset spread (a wall time maps to an instant up to that far away), and one more.
-#}
{% macro _gap_fill_margin(spec, axis) %}
    {%- set spread = 0 -%}
    {%- if axis.type != 'timestamp_ntz' and not window_tvf._is_utc(axis.zone) -%}
        {%- set offsets = window_tvf._zone_rules(axis.zone).offsets -%}
        {%- set spread = ((offsets | max) - (offsets | min)) * 1000000 -%}
    {%- endif -%}
    {%- set period = spec.series.period if spec.series.unit == 'micros' else 28 * 86400000000 * spec.series.period -%}
    {%- set per_size = (spec.size + spec.grid.period - 1) // spec.grid.period if spec.tvf == 'hop' else 1 -%}
    {{ return(per_size + (spread + 1000 + period - 1) // period + 1) }}
{% endmacro %}


{#-
    A range bound: {'sql': the time, typed like window_time, 'wall': its wall-clock microseconds (SQL)}. A string
    that is a date or time without an offset is a wall time of the windows' clock; with an offset, that instant;
    any other string is a SQL expression of the time column's type.
-#}
{% macro _gap_fill_bound(value, axis, argument) %}
    {%- if value is none -%}{{ return(none) }}{%- endif -%}
    {%- set text = value | string | trim -%}
    {%- if value is not string or not text or ';' in text -%}
        {{ window_tvf._argument_error('window_gap_fill', argument, value,
            "expected a time: a wall time of the windows' clock such as '2026-03-08' or '2026-03-08 06:00', an ISO "
            ~ "time with an offset such as '2026-03-08T06:00:00+00:00', or a SQL expression such as "
            ~ "\"date_trunc('day', current_timestamp())\"") }}
    {%- endif -%}
    {%- set match = modules.re.match("^(\d{4}-\d{2}-\d{2})([T ]\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?)?([+-]\d{2}:\d{2}|Z)?$", text) -%}
    {%- if not match -%}
        {%- set wall = window_tvf._wall_micros(axis, '(' ~ text ~ ')') -%}
        {{ return({'sql': '(' ~ text ~ ')', 'wall': wall}) }}
    {%- elif match.group(5) -%}
        {%- set micros = window_tvf._batch_micros(window_tvf._utc_instant(text, 'window_gap_fill', argument)) -%}
        {{ return(window_tvf._gap_fill_instant_bound(micros, axis)) }}
    {%- endif -%}
    {%- set parsed = modules.datetime.datetime.fromisoformat(text.replace(' ', 'T')) -%}
    {%- set wall = window_tvf._batch_micros(parsed.replace(tzinfo=modules.pytz.utc)) -%}
    {%- set sql = window_tvf._wall_timestamp(axis, wall ~ 'L') if axis.type == 'timestamp_ntz'
        else window_tvf._zone_instant(axis.zone, wall ~ 'L') -%}
    {{ return({'sql': sql, 'wall': wall ~ 'L'}) }}
{% endmacro %}

{#- A bound at an instant (epoch microseconds): for a timestamp_ntz window_time, its UTC wall time (as batches). -#}
{% macro _gap_fill_instant_bound(micros, axis) %}
    {%- if axis.type == 'timestamp_ntz' -%}
        {{ return({'sql': window_tvf._wall_timestamp(axis, micros ~ 'L'), 'wall': micros ~ 'L'}) }}
    {%- endif -%}
    {%- set sql = 'timestamp_micros(' ~ micros ~ 'L)' -%}
    {{ return({'sql': sql, 'wall': window_tvf._wall_micros(axis, sql)}) }}
{% endmacro %}


{#-
    fill: {column: how} as {column: {'kind': 'constant' | 'locf' | 'interpolate' | 'previous', 'value': SQL (constant),
    'max_windows': n, 'max_micros': n (bounded locf)}}; a NULL fill is a constant 'null'.
-#}
{% macro _gap_fill_fills(fill, columns, relation) %}
    {%- set allowed = "expected {column: fill}, each fill one of: a number (e.g. 0 for counts), 'null', 'locf' (the "
        ~ "last non-NULL value carried forward), {'locf': N} or {'locf': '6 hours'} (carried at most N windows or "
        ~ "that long), 'interpolate' (linear in time between the non-NULL neighbours), 'previous' (the previous "
        ~ "window's value), or {'constant': 'a SQL expression'}" -%}
    {%- if fill is not none and fill is not mapping -%}
        {{ window_tvf._argument_error('window_gap_fill', 'fill', fill, allowed) }}
    {%- endif -%}
    {%- set fills = {} -%}
    {%- for column, how in (fill or {}).items() -%}
        {%- do window_tvf._existing_columns(column, columns, relation, 'window_gap_fill', 'fill') -%}
        {%- set name = window_tvf._unquoted(column) | lower -%}
        {%- if how is number and how is not sameas true and how is not sameas false and (how | string) not in ('nan', 'inf', '-inf') -%}
            {%- do fills.update({name: {'kind': 'constant', 'value': how | string}}) -%}
        {%- elif how is none or how == 'null' -%}
            {%- do fills.update({name: {'kind': 'constant', 'value': 'null'}}) -%}
        {%- elif how in ('locf', 'interpolate', 'previous') -%}
            {%- do fills.update({name: {'kind': how}}) -%}
        {%- elif how is mapping and how.keys() | list == ['constant'] and how.constant is string and how.constant | trim
                and ';' not in how.constant -%}
            {%- do fills.update({name: {'kind': 'constant', 'value': '(' ~ how.constant ~ ')'}}) -%}
        {%- elif how is mapping and how.keys() | list == ['locf'] and how.locf is number -%}
            {%- do fills.update({name: {'kind': 'locf', 'max_windows': window_tvf._positive_integer(how.locf,
                'window_gap_fill', 'fill')}}) -%}
        {%- elif how is mapping and how.keys() | list == ['locf'] and how.locf is string -%}
            {%- do fills.update({name: {'kind': 'locf', 'max_micros': window_tvf._positive_duration(how.locf,
                'window_gap_fill', 'fill')}}) -%}
        {%- else -%}
            {{ window_tvf._argument_error('window_gap_fill', 'fill', {column: how}, allowed) }}
        {%- endif -%}
    {%- endfor -%}
    {{ return(fills) }}
{% endmacro %}

{#- The value of `column` on an added row at `position`, from the row its gap follows (SQL). -#}
{% macro _gap_fill_value(column, how, type) -%}
    {%- set value -%}
    {%- if how.kind == 'constant' -%}
        {{ how.value }}
    {%- elif how.kind == 'previous' -%}
        case when series.gap_fill__position = series.gap_fill__index + 1 then series.{{ column }} end
    {%- elif how.kind == 'locf' -%}
        case when series.gap_fill__position > series.gap_fill__index
            {%- if how.max_windows %} and series.gap_fill__position - series.gap_fill__{{ column }}_index <= {{ how.max_windows }}{% endif %}
            {%- if how.max_micros %} and series.gap_fill__row_time - series.gap_fill__{{ column }}_time <= {{ how.max_micros }}L{% endif %}
            then series.gap_fill__{{ column }}_last end
    {%- else -%}
        case when series.gap_fill__position > series.gap_fill__index then
            series.gap_fill__{{ column }}_last + (series.gap_fill__{{ column }}_next - series.gap_fill__{{ column }}_last)
                * cast(series.gap_fill__row_time - series.gap_fill__{{ column }}_time as double)
                / (series.gap_fill__{{ column }}_next_time - series.gap_fill__{{ column }}_time)
        end
    {%- endif -%}
    {%- endset -%}
    {%- if how.kind == 'interpolate' and type and modules.re.match('^(tinyint|smallint|int|integer|bigint|long)$', type) -%}
        cast(round({{ value }}) as {{ type }})
    {%- elif how.kind == 'interpolate' and type and type.startswith('decimal') -%}
        cast({{ value }} as {{ type }})
    {%- else -%}
        {{ value }}
    {%- endif -%}
{%- endmacro %}


{#-
    The SQL and its output columns: [sql, columns]. In a microbatch batch (scope.active) the range is the batch's too
    and a key's last known values before the batch come from the input's earlier windows (docs/gap_fill.md).
-#}
{% macro _gap_fill_sql(relation, scope, window, group_by, fill, start, end, keys_from, span, filled_column) %}
    {%- set spec = window_tvf._gap_fill_spec(window) -%}
    {%- set source = window_tvf._relation(relation, 'window_gap_fill') -%}
    {%- set columns = window_tvf._known_columns(source) -%}
    {%- set keys = window_tvf._existing_columns(group_by, columns, source, 'window_gap_fill', 'group_by') -%}
    {%- for column in ['window_start', 'window_end', 'window_time'] if columns and column not in columns -%}
        {{ window_tvf._argument_error('window_gap_fill', 'relation', source | string, "it has no column " ~ column
            ~ "; gap filling takes window results (window_start, window_end, window_time, keys, values), such as "
            ~ "window_aggregate's output; its columns are: " ~ (columns.keys() | join(', '))) }}
    {%- endfor -%}
    {%- set axis = window_tvf._time_axis(source, 'window_time', spec.time_zone, 'window_gap_fill') -%}
    {%- set axis = dict(axis, type=axis.type or 'timestamp') -%}
    {%- set fills = window_tvf._gap_fill_fills(fill, columns, source) -%}
    {%- set partitions = window_tvf._batch_partition_columns() -%}
    {%- set names = window_tvf._known_column_names(source) | map('lower') | list -%}
    {%- set values = names | reject('in', ['window_start', 'window_end', 'window_time'] + keys + partitions.keys() | list)
        | list if names else fills.keys() | list -%}
    {%- set derived = names | select('in', partitions.keys() | list) | list -%}
    {%- set filled_column = window_tvf._column_name(filled_column, 'window_gap_fill', 'filled_column') -%}
    {%- if filled_column | lower in names -%}
        {{ window_tvf._argument_error('window_gap_fill', 'filled_column', filled_column,
            "the relation already has a column of that name; name the marker column otherwise") }}
    {%- endif -%}
    {%- set span = span if span is not none else ('data' if keys_from is not none else 'key') -%}
    {%- if span not in ('key', 'data') -%}
        {{ window_tvf._argument_error('window_gap_fill', 'span', span, "expected 'key' (each key from its first window "
            ~ "to its last) or 'data' (every key from the data's first window to its last)") }}
    {%- elif keys_from is not none and span == 'key' -%}
        {{ window_tvf._argument_error('window_gap_fill', 'span', span, "keys_from gives keys that may have no "
            ~ "windows, hence no first or last window of their own; use span='data' (the default with keys_from)") }}
    {%- elif keys_from is not none and not keys -%}
        {{ window_tvf._argument_error('window_gap_fill', 'keys_from', keys_from | string,
            "keys_from needs group_by: the key columns to read from it") }}
    {%- endif -%}
    {%- set bounds = {'lower': [], 'upper': []} -%}
    {%- for argument, value, side in [('start', start, 'lower'), ('end', end, 'upper')] if value is not none -%}
        {%- do bounds[side].append(window_tvf._gap_fill_bound(value, axis, argument)) -%}
    {%- endfor -%}
    {%- set batch = scope.batch if scope.active else none -%}
    {%- if batch is not none -%}
        {%- do window_tvf._gap_fill_batch_checks(batch, fills, span, keys_from) -%}
        {%- do bounds.lower.append(window_tvf._gap_fill_instant_bound(window_tvf._batch_micros(batch.start), axis)) -%}
        {%- do bounds.upper.append(window_tvf._gap_fill_instant_bound(window_tvf._batch_micros(batch.end), axis)) -%}
    {%- endif -%}
    {%- set context_ = {'input': scope.relations[0] if scope.active else source, 'spec': spec, 'axis': axis,
        'key_columns': keys, 'value_columns': values, 'fills': fills,
        'types': columns, 'span': span, 'bounds': bounds, 'margin': window_tvf._gap_fill_margin(spec, axis)} -%}
    {%- set sql -%}
{% call window_tvf._self_contained('gap_fill') -%}
with gap_fill__windows as (
    {{ window_tvf._gap_fill_windows(context_.input, context_) }}
),

gap_fill__rows as (
    {{ window_tvf._gap_fill_rows(context_) }}
    {%- if batch is not none and (span == 'key' or fills.values() | selectattr('kind', 'in', ['locf', 'previous']) | list) %}

    union all

    {{ window_tvf._gap_fill_carried(window_tvf._gap_fill_history(relation, source, batch), context_) }}
    {%- endif %}
    {%- if keys_from is not none %}

    union all

    {{ window_tvf._gap_fill_missing_keys(keys_from, context_) }}
    {%- endif %}
),
gap_fill__neighbours as (
    {{ window_tvf._gap_fill_neighbours(context_) }}
),

gap_fill__series as (
    {{ window_tvf._gap_fill_series(context_) }}
),

gap_fill__timed as (
    {{ window_tvf._gap_fill_timed(context_) }}
)

select
    gap_fill__window_start as window_start,
    gap_fill__window_end as window_end,
    gap_fill__window_time as window_time,
    {%- for key in keys %}
    series.{{ key }},
    {%- endfor %}
    {%- for column in values %}
    case when series.gap_fill__real then series.{{ column }} else {{ window_tvf._gap_fill_value(column,
        fills.get(column, {'kind': 'constant', 'value': 'null'}), columns.get(column)) }} end as {{ column }},
    {%- endfor %}
    {%- for column in derived %}
    {{ window_tvf._batch_partition_value(column, 'series.gap_fill__window_time') }} as {{ column }},
    {%- endfor %}
    not series.gap_fill__real as {{ filled_column }}
from gap_fill__timed as series
{%- set conditions = [] %}
{%- for bound in bounds.lower %}{% do conditions.append('series.gap_fill__window_time >= ' ~ bound.sql) %}{% endfor %}
{%- for bound in bounds.upper %}{% do conditions.append('series.gap_fill__window_time < ' ~ bound.sql) %}{% endfor %}
{%- if axis.type == 'timestamp' and not window_tvf._is_utc(axis.zone) %}
    {#- A window of wall times that the zone skips (02:00-03:00 on a spring-forward night) holds no instant: the
        TVFs never make it, and neither does gap filling. -#}
    {%- do conditions.append('series.gap_fill__start_instant < series.gap_fill__end_instant') %}
{%- endif %}
{%- for condition in conditions %}
{{ 'where' if loop.first else '    and' }} {{ condition }}
{%- endfor %}
{%- endcall %}
    {%- endset -%}
    {{ return([sql, ['window_start', 'window_end', 'window_time'] + keys + values + derived + [filled_column]]) }}
{% endmacro %}

{% macro _gap_fill_batch_checks(batch, fills, span, keys_from) %}
    {%- set prefix = "window_tvf.window_gap_fill: model " ~ batch.model ~ " is a microbatch model (batch_size '"
        ~ batch.size ~ "')" -%}
    {%- for column, how in fills.items() if how.kind == 'interpolate' -%}
        {{ window_tvf._compile_error(prefix ~ "; fill " ~ ({column: 'interpolate'} | tojson) ~ " needs the next "
            ~ "window's value, which lies in a later batch that may not have run: a batch would write values that a "
            ~ "later run changes. Use 'locf', 'previous' or a constant here, or interpolate in a table model") }}
    {%- endfor -%}
    {%- if span == 'data' and keys_from is none -%}
        {{ window_tvf._compile_error(prefix ~ "; span 'data' gives every key seen anywhere in the input every window, "
            ~ "which a batch cannot know without reading all of the input, later batches' too. Use span='key' (each "
            ~ "key from its first window on, through the batch) or keys_from (a dimension of the keys)") }}
    {%- endif -%}
{% endmacro %}

{#- The input's windows before the batch, read without dbt's filter to the batch. -#}
{% macro _gap_fill_history(relation, source, batch) %}
    {%- set unfiltered = relation if relation is string else source.render() -%}
    {{ return('(select * from ' ~ unfiltered ~ ' where window_time < '
        ~ window_tvf._batch_time_literal(batch.start) ~ ')') }}
{% endmacro %}


{#-
    The input's windows as their keys, values, window number (checked: a window that is not on the spec's grid is
    an error when the query runs) and time (epoch microseconds of window_time; a timestamp_ntz's wall time).
-#}
{% macro _gap_fill_windows(input, c) -%}
    {%- set wall_axis = dict(c.axis, type='timestamp_ntz') -%}
    {%- set named = 'window_end' if c.spec.tvf == 'cumulate' else 'window_start' -%}
    {%- set walls = window_tvf._gap_fill_walls(c.spec, 'numbered.gap_fill__cell') -%}
select
        {%- for column in c.key_columns + c.value_columns %}
        numbered.{{ column }},
        {%- endfor %}
        case
            when {{ walls.start }} = numbered.gap_fill__start_wall and {{ walls.end }} = numbered.gap_fill__end_wall
                then numbered.gap_fill__cell
            else raise_error(concat('window_tvf.window_gap_fill: the window [', cast(numbered.gap_fill__start_wall as string),
                ', ', cast(numbered.gap_fill__end_wall as string), ') (wall-clock microseconds) of the input is not a '
                || '{{ c.spec.tvf }} window of the window spec: give the spec the windows were made with'))
        end as gap_fill__index,
        {{ window_tvf._batch_utc_micros('numbered.window_time') }} as gap_fill__time
    from (
        select
            windows.*,
            {{ window_tvf._gap_fill_cell(c.spec, window_tvf._wall_micros(wall_axis, 'windows.' ~ named)) }} as gap_fill__cell,
            {{ window_tvf._wall_micros(wall_axis, 'windows.window_start') }} as gap_fill__start_wall,
            {{ window_tvf._wall_micros(wall_axis, 'windows.window_end') }} as gap_fill__end_wall
        from {{ input }} as windows
        where windows.window_start is not null
    ) as numbered
{%- endmacro %}

{#- The columns that say, per filled column, where its last non-NULL value was (index and time). -#}
{% macro _gap_fill_carried_columns(c) %}
    {{ return(c.fills.items() | selectattr('1.kind', 'in', ['locf', 'interpolate']) | map('first') | list) }}
{% endmacro %}

{% macro _gap_fill_rows(c) -%}
select
        windows.*,
        false as gap_fill__carried
        {%- for column in window_tvf._gap_fill_carried_columns(c) %},
        case when windows.{{ column }} is not null then windows.gap_fill__index end as gap_fill__{{ column }}_at_index,
        case when windows.{{ column }} is not null then windows.gap_fill__time end as gap_fill__{{ column }}_at_time
        {%- endfor %}
    from gap_fill__windows as windows
{%- endmacro %}

{#-
    One row per key seen before the batch: its last window's number, and per filled column what carries into the
    batch: 'locf' the last non-NULL value (with its window's number and time), 'previous' the last window's value.
-#}
{% macro _gap_fill_carried(history, c) -%}
select
        {%- for key in c.key_columns %}
        earlier.{{ key }},
        {%- endfor %}
        {%- for column in c.value_columns %}
        {%- set how = c.fills.get(column, {}) %}
        {%- if how.kind == 'locf' %}
        max_by(earlier.{{ column }}, case when earlier.{{ column }} is not null then earlier.gap_fill__index end) as {{ column }},
        {%- elif how.kind == 'previous' %}
        max_by(earlier.{{ column }}, earlier.gap_fill__index) as {{ column }},
        {%- else %}
        null as {{ column }},
        {%- endif %}
        {%- endfor %}
        max(earlier.gap_fill__index) as gap_fill__index,
        max(earlier.gap_fill__time) as gap_fill__time,
        true as gap_fill__carried
        {%- for column in window_tvf._gap_fill_carried_columns(c) %},
        max(case when earlier.{{ column }} is not null then earlier.gap_fill__index end) as gap_fill__{{ column }}_at_index,
        max(case when earlier.{{ column }} is not null then earlier.gap_fill__time end) as gap_fill__{{ column }}_at_time
        {%- endfor %}
    from ({{ window_tvf._gap_fill_windows(history, c) }}) as earlier
    {%- if c.key_columns %}
    group by {{ c.key_columns | join(', ') }}
    {%- endif %}
    having count(*) > 0
{%- endmacro %}

{#- The keys of keys_from that have no window: a row each without a window, so they get the whole range. -#}
{% macro _gap_fill_missing_keys(keys_from, c) -%}
    {%- set dimension = window_tvf._relation(keys_from, 'window_gap_fill') -%}
    {%- do window_tvf._existing_columns(c.key_columns, window_tvf._known_columns(dimension), dimension, 'window_gap_fill', 'keys_from') -%}
select
        {%- for key in c.key_columns %}
        dimension.{{ key }},
        {%- endfor %}
        {%- for column in c.value_columns %}
        null as {{ column }},
        {%- endfor %}
        cast(null as bigint) as gap_fill__index,
        cast(null as bigint) as gap_fill__time,
        false as gap_fill__carried
        {%- for column in window_tvf._gap_fill_carried_columns(c) %},
        cast(null as bigint) as gap_fill__{{ column }}_at_index,
        cast(null as bigint) as gap_fill__{{ column }}_at_time
        {%- endfor %}
    from (select distinct {{ c.key_columns | join(', ') }} from {{ dimension }}) as dimension
    left anti join gap_fill__windows as windows
        on {% for key in c.key_columns %}{{ 'and ' if not loop.first }}dimension.{{ key }} <=> windows.{{ key }}{{ ' ' }}{% endfor %}
{%- endmacro %}


{#-
    Each window row with what its gap needs, from one window pass per key in window order: the next window's number,
    and per carried column the last non-NULL value at or before the row (with its window's number and time) and,
    for 'interpolate', the next non-NULL value after it (with its time).
-#}
{% macro _gap_fill_neighbours(c) -%}
    {%- set series = ('partition by ' ~ c.key_columns | join(', ') ~ ' ' if c.key_columns else '') ~ 'order by gap_fill__index' -%}
    {%- set so_far = '(' ~ series ~ ' rows between unbounded preceding and current row)' -%}
    {%- set after = '(' ~ series ~ ' rows between 1 following and unbounded following)' -%}
select
        rows.*,
        lead(rows.gap_fill__index) over ({{ series }}) as gap_fill__next_index,
        row_number() over ({{ series }}) = 1 as gap_fill__first
        {%- for column in window_tvf._gap_fill_carried_columns(c) %},
        last_value(rows.{{ column }}, true) over {{ so_far }} as gap_fill__{{ column }}_last,
        last_value(rows.gap_fill__{{ column }}_at_index, true) over {{ so_far }} as gap_fill__{{ column }}_index,
        last_value(rows.gap_fill__{{ column }}_at_time, true) over {{ so_far }} as gap_fill__{{ column }}_time
        {%- if c.fills[column].kind == 'interpolate' %},
        first_value(rows.{{ column }}, true) over {{ after }} as gap_fill__{{ column }}_next,
        first_value(rows.gap_fill__{{ column }}_at_time, true) over {{ after }} as gap_fill__{{ column }}_next_time
        {%- endif %}
        {%- endfor %}
    from gap_fill__rows as rows
{%- endmacro %}

{#- SQL of the greatest (or least) of some bigint expressions; none when there are none. -#}
{% macro _gap_fill_extreme(function, expressions) %}
    {%- if not expressions -%}{{ return(none) }}{%- endif -%}
    {{ return(expressions[0] if expressions | length == 1 else function ~ '(' ~ expressions | join(', ') ~ ')') }}
{% endmacro %}

{#-
    Each row's window numbers: the row itself and the missing windows after it, up to the next row or the range's
    end; the first row of a key also those before it from the range's start (span 'data'). A row carried from
    before a batch or a key without windows contributes only missing windows.
-#}
{% macro _gap_fill_series(c) -%}
    {%- set first, last = [], [] -%}
    {%- for bound in c.bounds.lower -%}
        {%- do first.append('(' ~ window_tvf._gap_fill_cell(c.spec, bound.wall) ~ ' - ' ~ c.margin ~ ')') -%}
    {%- endfor -%}
    {%- for bound in c.bounds.upper -%}
        {%- do last.append('(' ~ window_tvf._gap_fill_cell(c.spec, bound.wall) ~ ' + ' ~ c.margin ~ ')') -%}
    {%- endfor -%}
    {#- The data's bounds: the numbers of its first and last window, from scalar subqueries over one window column
        (Spark runs them once, before the query, as constants; a window's number grows with its start and end). -#}
    {%- set named = 'window_end' if c.spec.tvf == 'cumulate' else 'window_start' -%}
    {%- set wall_axis = dict(c.axis, type='timestamp_ntz') -%}
    {%- set data = [] -%}
    {%- for function in ['min', 'max'] -%}
        {%- do data.append(window_tvf._gap_fill_cell(c.spec, window_tvf._wall_micros(wall_axis,
            '(select ' ~ function ~ '(' ~ named ~ ') from ' ~ c.input ~ ')'))) -%}
    {%- endfor -%}
    {%- set first = window_tvf._gap_fill_extreme('greatest', first or (['(' ~ data[0] ~ ')'] if c.span == 'data' else [])) -%}
    {%- set last = window_tvf._gap_fill_extreme('least', last or (['(' ~ data[1] ~ ')'] if c.span == 'data' else [])) -%}
    {%- set own_start -%}
        case
            when rows.gap_fill__carried then rows.gap_fill__index + 1
            {%- if c.span == 'data' %}
            when rows.gap_fill__index is null or rows.gap_fill__first then {{ first }}
            {%- endif %}
            else rows.gap_fill__index
        end
    {%- endset -%}
    {%- set own_end = 'coalesce(rows.gap_fill__next_index - 1, ' ~ (last or 'rows.gap_fill__index') ~ ')' -%}
select
        rows.*,
        gap_fill__position
    from (
        select
            rows.*,
            {{ window_tvf._gap_fill_extreme('greatest', [own_start, first] | reject('none') | list) }} as gap_fill__from,
            {{ window_tvf._gap_fill_extreme('least', [own_end, last] | reject('none') | list) }} as gap_fill__to
        from gap_fill__neighbours as rows
    ) as rows
    lateral view explode(case
        when rows.gap_fill__to >= rows.gap_fill__from then sequence(rows.gap_fill__from, rows.gap_fill__to)
        else cast(array() as array<bigint>)
    end) positions as gap_fill__position
{%- endmacro %}

{#- The windows of the positions, typed as the TVFs make them, and each one's time. -#}
{% macro _gap_fill_timed(c) -%}
    {%- set walls = window_tvf._gap_fill_walls(c.spec, 'series.gap_fill__position') -%}
select
        walled.*,
        {{ window_tvf._batch_utc_micros('walled.gap_fill__window_time') }} as gap_fill__row_time
    from (
        select
            series.*,
            coalesce(series.gap_fill__position = series.gap_fill__index and not series.gap_fill__carried, false)
                as gap_fill__real,
            {{ window_tvf._wall_timestamp(c.axis, walls.start) }} as gap_fill__window_start,
            {{ window_tvf._wall_timestamp(c.axis, walls.end) }} as gap_fill__window_end,
            {{ window_tvf._window_time(c.axis, walls.end) }} as gap_fill__window_time
            {%- if c.axis.type == 'timestamp' and not window_tvf._is_utc(c.axis.zone) %},
            {{ window_tvf._zone_instant(c.axis.zone, walls.start) }} as gap_fill__start_instant,
            {{ window_tvf._zone_instant(c.axis.zone, walls.end) }} as gap_fill__end_instant
            {%- endif %}
        from gap_fill__series as series
    ) as walled
{%- endmacro %}
