{#
    The arithmetic shared by the window TVFs and window operations. Windows are computed on a wall clock, in
    microseconds since 1970-01-01 00:00 of that clock (bigint), as Flink computes them:
      - a `timestamp_ntz` column (Flink's TIMESTAMP) is its own wall clock; no zone is involved;
      - a `timestamp` column (Flink's TIMESTAMP_LTZ) is read on the wall clock of a time zone: the macro's
        `time_zone` argument, else the Spark session's zone (Flink's table.local-time-zone).
    window_start and window_end are wall-clock values, so they are `timestamp_ntz` for both column types (Flink types
    them TIMESTAMP); window_time is the instant of window_end - 1 ms, typed like the time column.
#}

{#-
    How a macro call reads its time column: {'type': 'timestamp' | 'timestamp_ntz' | none (not known at compile time:
    a CTE name), 'zone': the zone of a `timestamp` column's wall clock, 'session_utc': whether the session zone is
    UTC}. A `time_zone` for a timestamp_ntz column is an error: its values are already wall-clock times.
-#}
{% macro _time_axis(relation, timecol, time_zone, macro_name) %}
    {%- set columns = window_tvf._known_columns(relation) -%}
    {%- set column_type = columns.get(window_tvf._unquoted(timecol) | lower) -%}
    {%- set zone = window_tvf._time_zone_argument(time_zone, macro_name) -%}
    {%- if zone is not none and column_type == 'timestamp_ntz' -%}
        {{ window_tvf._argument_error(macro_name, 'time_zone', time_zone,
            "the time column " ~ timecol ~ " is a timestamp_ntz, whose values are wall-clock times already: windows on "
            ~ "it do not depend on a zone (time_zone applies to timestamp columns); drop time_zone, or convert the column "
            ~ "to a timestamp first, e.g. to_utc_timestamp(" ~ timecol ~ ", 'Europe/Paris') for times written in Paris") }}
    {%- endif -%}
    {{ return({'type': column_type if column_type in ('timestamp', 'timestamp_ntz') else none,
        'zone': window_tvf._session_time_zone() if zone is none else zone,
        'session_utc': window_tvf._session_time_zone_is_utc()}) }}
{% endmacro %}

{#- Wall-clock microseconds of `time_expr`, a value of the axis' time column. -#}
{% macro _wall_micros(axis, time_expr) -%}
    {%- set ntz -%}
        {%- if axis.session_utc -%}
            unix_micros(cast({{ time_expr }} as timestamp))
        {%- else -%}
            timestampdiff(microsecond, timestamp_ntz'1970-01-01 00:00:00', cast({{ time_expr }} as timestamp_ntz))
        {%- endif -%}
    {%- endset -%}
    {%- set ltz = window_tvf._zone_wall_micros(axis.zone, 'unix_micros(cast(' ~ time_expr ~ ' as timestamp))') -%}
    {%- if axis.type == 'timestamp_ntz' -%}
        {{ ntz }}
    {%- elif axis.type == 'timestamp' -%}
        {{ ltz }}
    {%- else -%}
        {#- Type unknown at compile time: Spark folds typeof() to a constant, so only one branch is evaluated. -#}
        case when typeof({{ time_expr }}) = 'timestamp_ntz' then {{ ntz }} else {{ ltz }} end
    {%- endif -%}
{%- endmacro %}

{#-
    The timestamp_ntz showing `micros` wall-clock microseconds. In a UTC session casting a timestamp to
    timestamp_ntz is the identity on microseconds; otherwise the addition is done on the timestamp_ntz itself.
-#}
{% macro _wall_timestamp(axis, micros) -%}
    {%- if axis.session_utc -%}
        cast(timestamp_micros({{ micros }}) as timestamp_ntz)
    {%- else -%}
        {{ window_tvf._timestamp_ntz_of_micros(micros) }}
    {%- endif -%}
{%- endmacro %}

{#-
    The timestamp_ntz `micros` (a bigint expression) microseconds after 1970-01-01 00:00: exact, and the same text
    on every supported Spark (no slower than timestampadd on 4.3); not timestampadd(microsecond, n, t), whose n Spark 3.5
    takes as an int, wrapping larger amounts around without an error (4.0 takes a bigint). A day-time interval is exact on a
    timestamp_ntz, but added to a timestamp it moves whole days on the session zone's calendar (23 or 25 hours
    across a DST change); a calendar interval of seconds alone (make_interval) adds elapsed time to either type.
-#}
{% macro _timestamp_ntz_of_micros(micros) -%}
    (timestamp_ntz'1970-01-01 00:00:00' + ({{ micros }}) * interval '0.000001' second)
{%- endmacro %}

{#-
    `time_expr` (a timestamp or timestamp_ntz) plus `micros` microseconds (a whole number, or a bigint expression:
    _plus_micros_per_row, macros/internal/spark_version.sql), keeping its type.
-#}
{% macro _plus_micros(time_expr, micros) -%}
    {%- if micros is number -%}
        {%- set seconds = '%s%d.%06d' | format('-' if micros < 0 else '', (micros | abs) // 1000000, (micros | abs) % 1000000) -%}
        ({{ time_expr }} + make_interval(0, 0, 0, 0, 0, 0, {{ seconds }}))
    {%- else -%}
        {{ window_tvf._plus_micros_per_row(time_expr, micros) }}
    {%- endif -%}
{%- endmacro %}

{#-
    window_time: the instant of `end_micros` - 1 ms on the axis' wall clock, typed like the time column. When the
    type is not known at compile time, `like_expr` (a value of the time column, such as the row's own time or a
    group's earliest) carries the type: the result is `like_expr` moved by the right number of microseconds.
-#}
{% macro _window_time(axis, end_micros, like_expr=none) -%}
    {%- set wall = '(' ~ end_micros ~ ' - 1000)' -%}
    {%- if axis.type == 'timestamp_ntz' -%}
        {{ window_tvf._wall_timestamp(axis, wall) }}
    {%- elif axis.type == 'timestamp' -%}
        {{ window_tvf._zone_instant(axis.zone, wall) }}
    {%- else -%}
        {%- set ntz_axis = {'type': 'timestamp_ntz', 'zone': axis.zone, 'session_utc': axis.session_utc} -%}
        {%- set moved -%}
        case
            when typeof({{ like_expr }}) = 'timestamp_ntz' then {{ wall }} - {{ window_tvf._wall_micros(ntz_axis, like_expr) }}
            else unix_micros({{ window_tvf._zone_instant(axis.zone, wall) }}) - unix_micros(cast({{ like_expr }} as timestamp))
        end
        {%- endset -%}
        {{ window_tvf._plus_micros(like_expr, moved) }}
    {%- endif -%}
{%- endmacro %}

{#-
    The three window columns from the window's wall-clock start and end (microseconds). `prefix` names them
    <prefix>window_start, ...: window_aggregate's row path windows rows that may have window columns of their own.
-#}
{% macro _window_columns(axis, start_micros, end_micros, like_expr=none, prefix='') -%}
    {{ window_tvf._wall_timestamp(axis, start_micros) }} as {{ prefix }}window_start,
    {{ window_tvf._wall_timestamp(axis, end_micros) }} as {{ prefix }}window_end,
    {{ window_tvf._window_time(axis, end_micros, like_expr) }} as {{ prefix }}window_time
{%- endmacro %}

{#- The leading columns of a window result: window_start, window_end, window_time, then the keys. -#}
{% macro _window_and_keys(keys) -%}
    window_start,
    window_end,
    window_time,
    {%- for key in keys %}
    {{ key }},
    {%- endfor %}
{%- endmacro %}

{#- The latest grid point offset + k * period at or before `position` (all bigint expressions or numbers). -#}
{% macro _grid_floor(position, period, offset) -%}
    {{ position }} - pmod({{ position }} - ({{ offset }}), {{ period }})
{%- endmacro %}

{#- The grid points offset + k * period after `after` and up to `until`, ascending, as array<bigint>. -#}
{% macro _grid_points_between(after, until, period, offset) -%}
    {%- set first_after = '(' ~ window_tvf._grid_floor(after, period, offset) ~ ' + ' ~ period ~ ')' -%}
    {%- set last = '(' ~ window_tvf._grid_floor(until, period, offset) ~ ')' -%}
    case
        when {{ last }} >= {{ first_after }} then sequence({{ first_after }}, {{ last }}, cast({{ period }} as bigint))
        else cast(array() as array<bigint>)
    end
{%- endmacro %}

{#-
    The FROM clause of the window TVFs: `relation` as source_rows, then one-row lateral subqueries giving each row
    walled.window_tvf__wall (its time on the axis' wall clock, microseconds) and positioned.window_tvf__position
    (that time's position on `grid`). The caller adds `where source_rows.<timecol> is not null`. The helper values
    live in relations of their own, so `source_rows.*` is the input's columns and nothing else, whatever they are
    (a CTE's are unknown at compile time): one SQL text for every supported Spark, where `select t.* except (...)`
    would need Spark 4.0. Spark (3.5 too) turns one-row lateral subqueries into projections of the row
    (OptimizeOneRowRelationSubquery): the plan is the one nested SELECTs give (docs/spark_versions.md).
-#}
{% macro _positioned_sources(relation, timecol, axis, grid) -%}
{{ relation }} as source_rows,
    lateral (select {{ window_tvf._wall_micros(axis, 'source_rows.' ~ timecol) }} as window_tvf__wall) as walled,
    lateral (select {{ window_tvf._grid_position(grid, 'walled.window_tvf__wall') }} as window_tvf__position) as positioned
{%- endmacro %}

{#- The rows of `relation` with a time, plus window_tvf__wall and window_tvf__position (see _positioned_sources). -#}
{% macro _positioned_rows(relation, timecol, axis, grid) -%}
select
            source_rows.*,
            walled.window_tvf__wall,
            positioned.window_tvf__position
        from {{ window_tvf._positioned_sources(relation, timecol, axis, grid) }}
        where source_rows.{{ timecol }} is not null
{%- endmacro %}
