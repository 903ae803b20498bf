{#
    Durations given as strings: '10 minutes', '1 HOUR', '-6 minutes', '500 ms', '1 week', '3 months', or Flink's
    "INTERVAL '10' MINUTES". A parsed duration is a *span*:
      {'months': 0, 'micros': n, 'weeks': false}   a fixed length, in microseconds of the wall clock
                                                   ('1 day' is a calendar day when windows are on a zone's clock);
      {'months': 0, 'micros': n, 'weeks': true}    the same, written in weeks (window grids in weeks start on a
                                                   week day, Monday unless week_start says otherwise);
      {'months': n, 'micros': 0, 'weeks': false}   a calendar length: months, quarters (3) or years (12).
#}

{% macro _span_units() %}
    {%- set second, day = 1000000, 86400000000 -%}
    {{ return({
        'millisecond': ('micros', 1000), 'milliseconds': ('micros', 1000), 'ms': ('micros', 1000),
        'second': ('micros', second), 'seconds': ('micros', second), 'sec': ('micros', second),
        'secs': ('micros', second), 's': ('micros', second),
        'minute': ('micros', 60 * second), 'minutes': ('micros', 60 * second), 'min': ('micros', 60 * second),
        'mins': ('micros', 60 * second),
        'hour': ('micros', 3600 * second), 'hours': ('micros', 3600 * second), 'hr': ('micros', 3600 * second),
        'hrs': ('micros', 3600 * second), 'h': ('micros', 3600 * second),
        'day': ('micros', day), 'days': ('micros', day), 'd': ('micros', day),
        'week': ('weeks', 7 * day), 'weeks': ('weeks', 7 * day), 'w': ('weeks', 7 * day),
        'month': ('months', 1), 'months': ('months', 1), 'mon': ('months', 1), 'mons': ('months', 1),
        'quarter': ('months', 3), 'quarters': ('months', 3), 'q': ('months', 3),
        'year': ('months', 12), 'years': ('months', 12), 'yr': ('months', 12), 'yrs': ('months', 12),
        'y': ('months', 12),
    }) }}
{% endmacro %}

{% macro _duration_allowed(calendar=true) %}
    {{ return("expected a duration string such as '10 minutes', '1 hour', '500 milliseconds', '-6 minutes', "
        ~ ("'1 week', '3 months', " if calendar else "'1 week', ")
        ~ "or \"INTERVAL '10' MINUTES\", with a whole number and a unit: millisecond(s)/ms, second(s)/sec/s, "
        ~ "minute(s)/min, hour(s)/hr/h, day(s)/d, week(s)/w"
        ~ (", month(s)/mon, quarter(s)/q, year(s)/yr/y" if calendar else " (a fixed length: no months or years here)")) }}
{% endmacro %}

{#- The span of a duration string (see above); `calendar=false` rejects months, quarters and years. -#}
{% macro _parse_span(value, macro_name, argument, calendar=true) %}
    {%- set allowed = window_tvf._duration_allowed(calendar) -%}
    {%- if value is not string -%}
        {{ window_tvf._argument_error(macro_name, argument, value, allowed) }}
    {%- endif -%}
    {%- set text = value | trim | lower -%}
    {%- set match = modules.re.match("^([+-]?)\s*interval\s+'\s*([+-]?)\s*(\d+)\s*'\s*([a-z]+)$", text) -%}
    {%- if match -%}
        {%- set negative = (match.group(1) == '-') != (match.group(2) == '-') -%}
        {%- set amount, unit = match.group(3), match.group(4) -%}
    {%- else -%}
        {%- set match = modules.re.match("^([+-]?)\s*(\d+)\s*([a-z]+)$", text) -%}
        {%- if not match -%}
            {{ window_tvf._argument_error(macro_name, argument, value, allowed) }}
        {%- endif -%}
        {%- set negative = match.group(1) == '-' -%}
        {%- set amount, unit = match.group(2), match.group(3) -%}
    {%- endif -%}
    {%- set units = window_tvf._span_units() -%}
    {%- if unit not in units -%}
        {{ window_tvf._argument_error(macro_name, argument, value, "unknown unit '" ~ unit ~ "': " ~ allowed) }}
    {%- elif not calendar and units[unit][0] == 'months' -%}
        {{ window_tvf._argument_error(macro_name, argument, value, "months, quarters and years have no fixed length, "
            ~ "and a fixed duration is needed here (up to weeks, e.g. '30 days')") }}
    {%- endif -%}
    {%- set kind, size = units[unit] -%}
    {%- set amount = (-1 if negative else 1) * (amount | int) * size -%}
    {#- Bounded by Spark's time range (years 1 to 9999), so no window arithmetic on bigints can wrap around. -#}
    {%- if (kind == 'months' and amount | abs > 120000) or (kind != 'months' and amount | abs > 315569520000000000) -%}
        {{ window_tvf._argument_error(macro_name, argument, value,
            "it is longer than 10,000 years, more than any time Spark holds (years 1 to 9999)") }}
    {%- endif -%}
    {{ return({'months': amount if kind == 'months' else 0, 'micros': 0 if kind == 'months' else amount,
        'weeks': kind == 'weeks'}) }}
{% endmacro %}

{#- A fixed duration in microseconds (months, quarters and years rejected). -#}
{% macro _parse_duration(value, macro_name, argument) %}
    {{ return(window_tvf._parse_span(value, macro_name, argument, calendar=false).micros) }}
{% endmacro %}

{#- An allowed lateness: a fixed duration, zero or more. -#}
{% macro _lateness_duration(value, macro_name, argument='allowed_lateness') %}
    {%- set micros = window_tvf._parse_duration(value, macro_name, argument) -%}
    {%- if micros < 0 -%}
        {{ window_tvf._argument_error(macro_name, argument, value, "it must be zero or a positive duration, e.g. '2 hours'") }}
    {%- endif -%}
    {{ return(micros) }}
{% endmacro %}

{% macro _positive_duration(value, macro_name, argument) %}
    {%- set micros = window_tvf._parse_duration(value, macro_name, argument) -%}
    {%- if micros <= 0 -%}
        {{ window_tvf._argument_error(macro_name, argument, value, "it must be a positive duration, e.g. '10 minutes'") }}
    {%- endif -%}
    {{ return(micros) }}
{% endmacro %}

{#- A window size, slide or step: a positive fixed or calendar span. -#}
{% macro _positive_span(value, macro_name, argument) %}
    {%- set span = window_tvf._parse_span(value, macro_name, argument) -%}
    {%- if span.months + span.micros <= 0 -%}
        {{ window_tvf._argument_error(macro_name, argument, value,
            "it must be a positive duration, e.g. '10 minutes' or '1 month'") }}
    {%- endif -%}
    {{ return(span) }}
{% endmacro %}
