{#
    Final and provisional windows (docs/final_windows.md): which windows a run emits, given a watermark.

    A watermark W is a time up to which the input is complete. As in Flink, a window fires (is final) when the
    watermark reaches its window_time (window_end - 1 ms): window_time <= W. A session is final only when
    window_time < W (its window_end <= W on a millisecond clock): an event exactly one gap after its last event,
    at window_end, would still join it (sessions merge when they touch).

    emit: 'on_update' (every window, as soon as it holds rows: the default, RisingWave's EMIT ON UPDATE),
    'on_update_flagged' (the same, plus a boolean column is_final), 'on_window_close' (only the final windows:
    RisingWave's EMIT ON WINDOW CLOSE, Flink's firing without early firings).
#}

{% macro _emit_choices() %}
    {{ return(['on_update', 'on_update_flagged', 'on_window_close']) }}
{% endmacro %}

{#- The emit argument checked. -#}
{% macro _emit_argument(emit, macro_name) %}
    {%- if emit is not string or emit not in window_tvf._emit_choices() -%}
        {{ window_tvf._argument_error(macro_name, 'emit', emit,
            "expected 'on_update' (every window as soon as it holds rows, the default), 'on_update_flagged' (the same, "
            ~ "plus a boolean column is_final) or 'on_window_close' (only the final windows: window_time at or before "
            ~ "the watermark)") }}
    {%- endif -%}
    {{ return(emit) }}
{% endmacro %}

{#-
    The watermark as a SQL expression comparable with window_time:
    - none: derived from the data, as Flink's `WATERMARK FOR timecol AS timecol - INTERVAL <allowed_lateness>`:
      the largest time in the relation (all of it, also in a microbatch batch) less the window spec's
      allowed_lateness;
    - an ISO 8601 time such as '2026-11-01T03:00:00Z' (no offset: UTC): that instant (compared with a
      timestamp_ntz window_time: its UTC wall time, as dbt's batches);
    - any other string: a SQL expression of a timestamp, e.g. "current_timestamp() - interval 2 hours" or a
      scalar subquery, evaluated once by Spark.
-#}
{% macro _watermark_sql(watermark, relation, window, macro_name) %}
    {%- if watermark is none -%}
        {%- set spec = none if window is none else window_tvf._window_spec(window, macro_name) -%}
        {%- if spec is none or spec.get('allowed_lateness') is none -%}
            {{ window_tvf._argument_error(macro_name, 'watermark', watermark,
                "a watermark derived from the data (none) is the largest time column value less the window spec's "
                ~ "'allowed_lateness', and " ~ ("there is no window spec (window=none)" if spec is none
                else "the window spec has no 'allowed_lateness'") ~ "; add 'allowed_lateness' to the window spec "
                ~ "(e.g. '2 hours'; '0 seconds' for events that arrive in order) or pass a watermark: an ISO 8601 time "
                ~ "such as '2026-11-01T03:00:00Z' or a SQL expression of a timestamp") }}
        {%- endif -%}
        {%- set lateness = window_tvf._lateness_duration(spec.allowed_lateness, macro_name) -%}
        {%- set source = relation if relation is string else relation.render() -%}
        {{ return(window_tvf._plus_micros('(select max(' ~ spec.timecol ~ ') from ' ~ source ~ ')', -lateness)) }}
    {%- endif -%}
    {%- set allowed = "expected none (derived from the data: the largest time less the window spec's allowed_lateness), "
        ~ "an ISO 8601 time such as '2026-11-01T03:00:00Z', or a SQL expression of a timestamp such as "
        ~ "\"current_timestamp() - interval 2 hours\"" -%}
    {%- if watermark is not string or watermark | trim == '' or ';' in watermark -%}
        {{ window_tvf._argument_error(macro_name, 'watermark', watermark, allowed) }}
    {%- endif -%}
    {%- if modules.re.match("^\s*\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?)?([+-]\d{2}:\d{2}|[Zz])?\s*$", watermark) -%}
        {{ return(window_tvf._batch_time_literal(window_tvf._utc_instant(watermark, macro_name, 'watermark'))) }}
    {%- endif -%}
    {{ return('(' ~ watermark ~ ')') }}
{% endmacro %}

{#- Whether a window is final under watermark `watermark_sql`, as a SQL condition on `prefix`window_time. -#}
{% macro _final_condition(spec, watermark_sql, prefix='') %}
    {%- set session = spec is not none and spec.tvf in ('session', 'dynamic_session') -%}
    {{ return(prefix ~ 'window_time ' ~ ('<' if session else '<=') ~ ' ' ~ watermark_sql) }}
{% endmacro %}

{#-
    `sql` (windows with a window_time column) as `emit` asks: as is, with is_final (false where the watermark is
    NULL: an empty input), or only the final windows. `final` is the condition on finality.window_time.
-#}
{% macro _emitted(sql, emit, final) %}
    {%- if emit == 'on_update' -%}{{ return(sql) }}{%- endif -%}
    {%- set emitted -%}
select
    finality.*{% if emit == 'on_update_flagged' %},
    coalesce({{ final }}, false) as is_final{% endif %}
from (
    {{ sql }}
) as finality
{%- if emit == 'on_window_close' %}
where {{ final }}
{%- endif %}
    {%- endset -%}
    {{ return(emitted) }}
{% endmacro %}

{#- window_aggregate's emit: the arguments checked, then `sql` emitted under the watermark they give. -#}
{% macro _emit_windows(sql, macro_name, emit, watermark, relation, window) %}
    {%- set emit = window_tvf._emit_argument(emit, macro_name) -%}
    {%- if emit == 'on_update' -%}
        {%- if watermark is not none -%}
            {{ window_tvf._argument_error(macro_name, 'watermark', watermark,
                "a watermark decides which windows are final, and emit 'on_update' (the default) emits every window "
                ~ "unflagged; set emit='on_update_flagged' or 'on_window_close', or leave watermark unset") }}
        {%- endif -%}
        {{ return(sql) }}
    {%- endif -%}
    {%- set spec = none if window is none else window_tvf._window_spec(window, macro_name) -%}
    {%- set watermark_sql = window_tvf._watermark_sql(watermark, relation, window, macro_name) -%}
    {{ return(window_tvf._emitted(sql, emit, window_tvf._final_condition(spec, watermark_sql, 'finality.'))) }}
{% endmacro %}
