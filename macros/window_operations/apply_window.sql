{#
    A window described as data, so window operations (aggregate, Top-N, deduplication, join, collect) can take
    "which windows" as one argument:

        {'tvf': 'tumble',   'timecol': 'bidtime', 'size': '10 minutes'}
        {'tvf': 'hop',      'timecol': 'bidtime', 'slide': '5 minutes', 'size': '10 minutes'}
        {'tvf': 'cumulate', 'timecol': 'bidtime', 'step': '2 minutes', 'size': '10 minutes', 'offset': '1 minute'}
        {'tvf': 'cumulate', 'timecol': 'sold_at', 'step': '1 day', 'size': '1 month', 'time_zone': 'America/New_York'}
        {'tvf': 'session',  'timecol': 'bidtime', 'gap': '10 minutes', 'partition_by': 'bidder'}
        {'tvf': 'dynamic_session', 'timecol': 'bidtime', 'gap_ms': 'case when ... end', 'partition_by': 'bidder'}

    Every spec may name a 'time_zone'; tumble, hop and cumulate also a 'week_start' (see the TVFs).

    apply_window(relation, window) returns the TVF's SELECT for that spec.
#}
{% macro apply_window(relation, window) %}
    {{ return(adapter.dispatch('apply_window', 'window_tvf')(relation, window)) }}
{% endmacro %}

{% macro default__apply_window(relation, window) %}
    {{ return(window_tvf._window_rows(relation, window_tvf._window_spec(window, 'apply_window'))) }}
{% endmacro %}

{#-
    The TVF's SELECT for a checked spec. With `window_prefix` the window columns are <window_prefix>window_start, ...
    and the input may have window columns of its own (window_aggregate's row path over windowed rows, a cascade):
    the TVF's implementation is called directly, inside the microbatch scope that window_aggregate has entered.
-#}
{% macro _window_rows(relation, spec, window_prefix='') %}
    {%- set zone, week_start = spec.get('time_zone'), spec.get('week_start') -%}
    {%- set arguments = {
        'tumble': [spec.get('size'), spec.get('offset'), zone, week_start],
        'hop': [spec.get('slide'), spec.get('size'), spec.get('offset'), zone, week_start],
        'cumulate': [spec.get('step'), spec.get('size'), spec.get('offset'), zone, week_start],
        'session': [spec.get('gap'), spec.get('partition_by'), zone],
        'dynamic_session': [spec.get('gap_ms'), spec.get('partition_by'), zone],
    }[spec.tvf] -%}
    {%- if window_prefix -%}
        {%- set implementations = {'tumble': adapter.dispatch('tumble', 'window_tvf'),
            'hop': adapter.dispatch('hop', 'window_tvf'), 'cumulate': adapter.dispatch('cumulate', 'window_tvf'),
            'session': adapter.dispatch('session', 'window_tvf'),
            'dynamic_session': adapter.dispatch('dynamic_session', 'window_tvf')} -%}
        {{ return(implementations[spec.tvf](relation, spec.timecol, *arguments, window_prefix=window_prefix)) }}
    {%- endif -%}
    {%- set tvf = {'tumble': window_tvf.tumble, 'hop': window_tvf.hop, 'cumulate': window_tvf.cumulate,
        'session': window_tvf.session, 'dynamic_session': window_tvf.dynamic_session}[spec.tvf] -%}
    {{ return(tvf(relation, spec.timecol, *arguments)) }}
{% endmacro %}


{#- Checks a window spec's shape (the TVF checks the values) and returns it. -#}
{% macro _window_spec(window, macro_name, argument='window') %}
    {#- allowed_lateness and arrival_partition say how late the input's rows arrive and how it is stored: a
        microbatch batch reads with them (macros/internal/microbatch.sql); elsewhere every row is read anyway. -#}
    {%- set input = ['allowed_lateness', 'arrival_partition'] -%}
    {%- set arguments = {
        'tumble': (['timecol', 'size'], ['offset', 'time_zone', 'week_start'] + input),
        'hop': (['timecol', 'slide', 'size'], ['offset', 'time_zone', 'week_start'] + input),
        'cumulate': (['timecol', 'step', 'size'], ['offset', 'time_zone', 'week_start'] + input),
        'session': (['timecol', 'gap'], ['partition_by', 'time_zone'] + input),
        'dynamic_session': (['timecol', 'gap_ms'], ['partition_by', 'time_zone'] + input),
    } -%}
    {%- if window is not mapping or window.get('tvf') not in arguments -%}
        {{ window_tvf._argument_error(macro_name, argument, window,
            "expected a window spec: a dict with 'tvf' (one of " ~ (arguments.keys() | join(', '))
            ~ ") and that TVF's arguments, e.g. {'tvf': 'tumble', 'timecol': 'bidtime', 'size': '10 minutes'}") }}
    {%- endif -%}
    {%- set required, optional = arguments[window.tvf] -%}
    {%- for key in required if key not in window -%}
        {{ window_tvf._argument_error(macro_name, argument, window,
            "a " ~ window.tvf ~ " window needs '" ~ key ~ "' (required: " ~ (required | join(', ')) ~ ")") }}
    {%- endfor -%}
    {%- for key in window if key not in ['tvf'] + required + optional -%}
        {{ window_tvf._argument_error(macro_name, argument, window,
            "unknown key '" ~ key ~ "' for a " ~ window.tvf ~ " window; allowed: " ~ (['tvf'] + required + optional) | join(', ')) }}
    {%- endfor -%}
    {{ return(window) }}
{% endmacro %}


{#-
    What makes two windows the same, whatever their time columns: the TVF, its durations (parsed), the time zone and
    the week start as given (an absent zone is the session's on both sides).
-#}
{% macro _window_identity(spec, macro_name) %}
    {%- set identity = {'tvf': spec.tvf} -%}
    {%- for key in ['size', 'slide', 'step', 'gap', 'offset'] if spec.get(key) is not none -%}
        {%- do identity.update({key: window_tvf._parse_span(spec[key], macro_name, key)}) -%}
    {%- endfor -%}
    {%- if spec.get('gap_ms') is not none -%}{%- do identity.update({'gap_ms': spec.gap_ms | trim}) -%}{%- endif -%}
    {%- if identity.get('offset') and not (identity.offset.months or identity.offset.micros) -%}{%- do identity.pop('offset') -%}{%- endif -%}
    {%- do identity.update({'time_zone': window_tvf._time_zone_argument(spec.get('time_zone'), macro_name),
        'week_start': (spec.get('week_start') or 'monday') | lower}) -%}
    {{ return(identity) }}
{% endmacro %}
