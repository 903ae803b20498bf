{#
    SQL expressions shared by the windowing TVFs. Time arithmetic is done in microseconds, so it is exact for
    millisecond and microsecond timestamps and for times before 1970, and every result keeps the type of the
    time column (timestamp or timestamp_ntz).
#}

{#-
    Microseconds between the wall-clock epoch and `time_expr`. A `timestamp` column is read on the session time
    zone's wall clock (cast to timestamp_ntz), as Flink aligns TIMESTAMP_LTZ windows in its session time zone; with
    the project's UTC session that is the UTC epoch grid. Spark evaluates timestampdiff through LocalDateTime values,
    row by row; in a UTC session the wall clock of both timestamp types is the stored value, which unix_micros reads
    directly (a timestamp_ntz is cast to timestamp, read as UTC: the same number).
-#}
{% macro _epoch_micros(time_expr) -%}
    {%- if window_tvf._session_time_zone_is_utc() -%}
        unix_micros(cast({{ time_expr }} as timestamp))
    {%- else -%}
        timestampdiff(microsecond, timestamp_ntz'1970-01-01 00:00:00', cast({{ time_expr }} as timestamp_ntz))
    {%- endif -%}
{%- endmacro %}

{#-
    Whether the Spark session's time zone is UTC when the model compiles: asked once per model (the answer is kept
    in the model's context); false while dbt parses, which never runs the SQL. The embedded profile sets the zone
    before every query (WINDOW_TVF_SESSION_TIME_ZONE); on a target where a pre-hook changes it after compilation
    (`set spark.sql.session.timeZone`), windows would follow the zone seen at compile time.
-#}
{% macro _session_time_zone_is_utc() %}
    {%- if not execute -%}{{ return(false) }}{%- endif -%}
    {%- if 'window_tvf__session_time_zone' not in context -%}
        {%- do context.update({'window_tvf__session_time_zone': run_query('select current_timezone()').columns[0].values()[0]}) -%}
    {%- endif -%}
    {{ return(context['window_tvf__session_time_zone'] in ('UTC', 'Etc/UTC', 'Z', '+00:00', 'GMT', 'Etc/GMT')) }}
{% endmacro %}

{#- Distance from `time_expr` back to the latest grid point `offset + k * period` at or before it (0 <= d < period). -#}
{% macro _since_grid_start(time_expr, period, offset) -%}
    pmod({{ window_tvf._epoch_micros(time_expr) }}{{ " - (" ~ offset ~ ")" if offset }}, {{ period }})
{%- endmacro %}

{% macro _plus_micros(time_expr, micros) -%}
    timestampadd(microsecond, {{ micros }}, {{ time_expr }})
{%- endmacro %}

{#-
    The time `micros` microseconds after the wall-clock epoch, typed like `like_expr` (a time of the same column, such
    as a group's earliest): lets a GROUP BY use a bigint and convert once per group instead of once per row.
-#}
{% macro _time_at(micros, like_expr) -%}
    {{ window_tvf._plus_micros(like_expr, micros ~ ' - ' ~ window_tvf._epoch_micros(like_expr)) }}
{%- endmacro %}

{#- The latest grid point offset + k * period at or before `micros`. -#}
{% macro _grid_floor(micros, period, offset) -%}
    {{ micros }} - pmod({{ micros }} - ({{ offset }}), {{ period }})
{%- endmacro %}

{#- The grid points offset + k * period after `after_us` and up to `until_us`, ascending, as array<bigint>. -#}
{% macro _grid_points_between(after_us, until_us, period, offset) -%}
    {%- set first_after = '(' ~ window_tvf._grid_floor(after_us, period, offset) ~ ' + ' ~ period ~ ')' -%}
    {%- set last = '(' ~ window_tvf._grid_floor(until_us, period, offset) ~ ')' -%}
    case
        when {{ last }} >= {{ first_after }} then sequence({{ first_after }}, {{ last }}, cast({{ period }} as bigint))
        else cast(array() as array<bigint>)
    end
{%- endmacro %}

{#- The three window columns that follow the input's columns, computed from `window_start` of a subquery. -#}
{% macro _window_end_and_time(size) -%}
    {{ window_tvf._plus_micros('window_start', size) }} as window_end,
    {{ window_tvf._plus_micros('window_start', size - 1000) }} as window_time
{%- endmacro %}

{#- The leading columns of a window result: window_start, window_end, window_time, then the keys. -#}
{% macro _window_and_keys(keys) -%}
    window_start,
    window_end,
    {{ window_tvf._plus_micros('window_end', -1000) }} as window_time,
    {%- for key in keys %}
    {{ key }},
    {%- endfor %}
{%- endmacro %}
