{#
    Time zones: which zone's wall clock a `timestamp` (Flink's TIMESTAMP_LTZ) column is windowed on, and the
    conversions between an instant and that wall clock.

    Instant -> wall clock is done on every row, so it is arithmetic on longs: the zone's offset is looked up in its
    transitions between 1970 and 2100, read once per model from Spark's own time-zone rules (the JVM's tz database,
    the one Spark's from_utc_timestamp and Flink use) and compiled into the SQL as array literals; outside that
    range Spark's from_utc_timestamp is used. Wall clock -> instant (window_time, once per window) uses Spark's
    to_utc_timestamp, which follows java.time: a wall time the zone skips moves forward by the gap, a repeated wall
    time takes the earlier (summer) offset, as Flink does.
#}

{#- The first and last instant (epoch seconds, UTC) of the compiled transition table: 1970-01-01 and 2100-01-01. -#}
{% macro _zone_table_range() %}
    {{ return([0, 4102444800]) }}
{% endmacro %}

{#- A time_zone argument: none, an IANA name (any case; returned in its canonical spelling) or an offset '+05:30'. -#}
{% macro _time_zone_argument(value, macro_name) %}
    {%- if value is none -%}{{ return(none) }}{%- endif -%}
    {%- set allowed = "expected an IANA time zone name such as 'America/New_York', 'Europe/Berlin', 'Asia/Kolkata' or "
        ~ "'UTC' (the tz database's names), or a fixed offset such as '+05:30'" -%}
    {%- if value is not string -%}
        {{ window_tvf._argument_error(macro_name, 'time_zone', value, allowed) }}
    {%- endif -%}
    {%- if modules.re.match('^[+-]([01][0-9]|2[0-3]):[0-5][0-9]$', value) -%}
        {{ return(value) }}
    {%- endif -%}
    {%- set canonical = namespace(name=none) -%}
    {%- for name in modules.pytz.all_timezones if name | lower == value | trim | lower -%}
        {%- set canonical.name = name -%}
    {%- endfor -%}
    {%- if canonical.name is none -%}
        {{ window_tvf._argument_error(macro_name, 'time_zone', value, "unknown time zone: " ~ allowed) }}
    {%- endif -%}
    {{ return(canonical.name) }}
{% endmacro %}

{#-
    The Spark session's time zone when the model compiles, asked once per model (kept in the model's context);
    'UTC' while dbt parses, which never runs the SQL. The embedded profile sets the zone before every query
    (WINDOW_TVF_SESSION_TIME_ZONE); on a target where a pre-hook changes it after compilation
    (`set spark.sql.session.timeZone`), windows would follow the zone seen at compile time.
-#}
{% macro _session_time_zone() %}
    {%- if not execute -%}{{ return('UTC') }}{%- endif -%}
    {%- if 'window_tvf__session_time_zone' not in context -%}
        {%- do context.update({'window_tvf__session_time_zone': run_query('select current_timezone()').columns[0].values()[0]}) -%}
    {%- endif -%}
    {{ return(context['window_tvf__session_time_zone']) }}
{% endmacro %}

{% macro _is_utc(zone) %}
    {{ return(zone in ('UTC', 'Etc/UTC', 'Z', '+00:00', '-00:00', 'GMT', 'Etc/GMT', 'UCT', 'Etc/UCT', 'Universal',
        'Etc/Universal', 'Zulu', 'Etc/Zulu', 'GMT0', 'Etc/GMT0', 'Etc/GMT+0', 'Etc/GMT-0', 'Greenwich', 'Etc/Greenwich')) }}
{% endmacro %}

{% macro _session_time_zone_is_utc() %}
    {{ return(window_tvf._is_utc(window_tvf._session_time_zone())) }}
{% endmacro %}


{#-
    The zone's UTC offsets between 1970 and 2100 from Spark's time-zone rules, as {'transitions': [epoch seconds],
    'offsets': [seconds]}: offsets[0] holds before the first transition, offsets[i] from transitions[i - 1] on.
    Found by bisection in one query: days whose offset differs from the day before, then the hour, minute and second
    within them (about 50,000 offset evaluations, well under a second). Asked once per zone and model.
-#}
{% macro _zone_rules(zone) %}
    {%- if not execute -%}{{ return({'transitions': [], 'offsets': [0]}) }}{%- endif -%}
    {%- set cache = context.get('window_tvf__zone_rules', {}) -%}
    {%- if zone not in cache -%}
        {%- set low, high = window_tvf._zone_table_range() -%}
        {%- set query -%}
            with days as (
                select id * 86400 as s
                from range({{ low // 86400 + 1 }}, {{ high // 86400 + 1 }})
                where {{ window_tvf._offset_seconds(zone, 'id * 86400') }} != {{ window_tvf._offset_seconds(zone, 'id * 86400 - 86400') }}
            ),
            {%- for level, coarse, unit in [('hours', 'days', 3600), ('minutes', 'hours', 60), ('seconds', 'minutes', 1)] %}
            {%- set coarse_unit = {'days': 86400, 'hours': 3600, 'minutes': 60}[coarse] %}
            {{ level }} as (
                select point as s
                from {{ coarse }}
                lateral view explode(sequence({{ coarse }}.s - {{ coarse_unit - unit }}, {{ coarse }}.s, {{ unit }})) points as point
                where {{ window_tvf._offset_seconds(zone, 'point') }} != {{ window_tvf._offset_seconds(zone, 'point - ' ~ unit) }}
            ){{ ',' if not loop.last }}
            {%- endfor %}
            select {{ low }} as s, {{ window_tvf._offset_seconds(zone, low | string) }} as offset_s
            union all
            select s, {{ window_tvf._offset_seconds(zone, 's') }} as offset_s from seconds
            order by s
        {%- endset -%}
        {%- set transitions, offsets = [], [] -%}
        {%- for row in run_query(query).rows -%}
            {%- if not loop.first -%}{%- do transitions.append(row[0] | int) -%}{%- endif -%}
            {%- do offsets.append(row[1] | int) -%}
        {%- endfor -%}
        {%- do cache.update({zone: {'transitions': transitions, 'offsets': offsets}}) -%}
        {%- do context.update({'window_tvf__zone_rules': cache}) -%}
    {%- endif -%}
    {{ return(cache[zone]) }}
{% endmacro %}

{#- The zone's UTC offset in seconds at the instant `seconds_expr` (epoch seconds), from Spark's rules. -#}
{% macro _offset_seconds(zone, seconds_expr) -%}
    (unix_seconds(from_utc_timestamp(timestamp_seconds({{ seconds_expr }}), '{{ zone }}')) - ({{ seconds_expr }}))
{%- endmacro %}


{#-
    Wall-clock microseconds in `zone` of the instant `micros` (epoch microseconds, a bigint expression): the instant
    plus the zone's offset at it. Within the table's range the offset is found in array literals: buckets of 2^23
    seconds (97 days) hold the count of transitions before them, and at most a few transitions fall inside one
    bucket, so a few comparisons find the offset. No per-row time objects, strings or UDFs.
-#}
{% macro _zone_wall_micros(zone, micros) %}
    {%- if window_tvf._is_utc(zone) -%}{{ return(micros) }}{%- endif -%}
    {%- set rules = window_tvf._zone_rules(zone) -%}
    {%- set low, high = window_tvf._zone_table_range() -%}
    {%- set bucket_seconds = 8388608 -%}
    {%- set fallback = 'unix_micros(from_utc_timestamp(timestamp_micros(' ~ micros ~ "), '" ~ zone ~ "'))" -%}
    {%- if not rules.transitions -%}
        {%- set offset = rules.offsets[0] * 1000000 ~ 'L' -%}
        {%- set in_range = window_tvf._zone_wall_micros_lookup_range(micros, low, high) -%}
        {{ return('case when ' ~ in_range ~ ' then ' ~ micros ~ ' + ' ~ offset ~ ' else ' ~ fallback ~ ' end') }}
    {%- endif -%}
    {#- Per bucket: how many transitions come at or before its start (`counts`), and the most that fall strictly
        inside one bucket (`inside`), which is how many comparisons a row needs. -#}
    {%- set first_bucket_after, within = {}, {} -%}
    {%- for transition in rules.transitions -%}
        {%- set bucket, into = (transition - low) // bucket_seconds, (transition - low) % bucket_seconds -%}
        {%- set after = bucket if into == 0 else bucket + 1 -%}
        {%- do first_bucket_after.update({after: first_bucket_after.get(after, 0) + 1}) -%}
        {%- if into != 0 -%}{%- do within.update({bucket: within.get(bucket, 0) + 1}) -%}{%- endif -%}
    {%- endfor -%}
    {%- set scan = namespace(passed=0, inside=(within.values() | list + [0]) | max) -%}
    {%- set counts = [] -%}
    {%- for bucket in range((high - low + bucket_seconds - 1) // bucket_seconds) -%}
        {%- set scan.passed = scan.passed + first_bucket_after.get(bucket, 0) -%}
        {%- do counts.append(scan.passed) -%}
    {%- endfor -%}
    {%- set bucket = 'element_at(array(' ~ counts | join(',') ~ '), cast((' ~ micros ~ ' - ' ~ low ~ '000000L) div '
        ~ bucket_seconds ~ '000000L as int) + 1)' -%}
    {%- set transitions = 'array(' ~ (rules.transitions + [high] * scan.inside) | join(',') ~ ')' -%}
    {%- set later = [] if scan.inside else ['0'] -%}
    {%- for i in range(1, scan.inside + 1) -%}
        {%- do later.append('if(' ~ micros ~ ' >= element_at(' ~ transitions ~ ', ' ~ bucket ~ ' + ' ~ i ~ ') * 1000000L, 1, 0)') -%}
    {%- endfor -%}
    {%- set offset = 'element_at(array(' ~ rules.offsets | join(',') ~ '), ' ~ bucket ~ ' + 1 + ' ~ later | join(' + ') ~ ')' -%}
    {{ return('case when ' ~ window_tvf._zone_wall_micros_lookup_range(micros, low, high) ~ ' then ' ~ micros
        ~ ' + 1000000L * ' ~ offset ~ ' else ' ~ fallback ~ ' end') }}
{% endmacro %}

{% macro _zone_wall_micros_lookup_range(micros, low, high) %}
    {{ return(micros ~ ' >= ' ~ low ~ '000000L and ' ~ micros ~ ' < ' ~ high ~ '000000L') }}
{% endmacro %}

{#- The instant (a `timestamp`) at which `zone`'s wall clock shows `wall_micros`: java.time's gap and overlap rules. -#}
{% macro _zone_instant(zone, wall_micros) %}
    {%- if window_tvf._is_utc(zone) -%}{{ return('timestamp_micros(' ~ wall_micros ~ ')') }}{%- endif -%}
    {{ return('to_utc_timestamp(timestamp_micros(' ~ wall_micros ~ "), '" ~ zone ~ "')") }}
{% endmacro %}
