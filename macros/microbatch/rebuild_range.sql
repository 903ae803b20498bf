{#
    Which batches to rebuild after the input of microbatch window models changed in [changed_from, changed_to)
    (a backfilled or corrected hour, late data that a scheduled run's lookback does not reach):

        dbt run-operation window_tvf.rebuild_range --args '{models: [fct_sales_hop_microbatch],
            changed_from: "2026-11-01T07:00:00Z", changed_to: "2026-11-01T08:00:00Z"}'

    prints each model's range of window_time that can change and the `dbt run` that rebuilds them:
    [changed_from - the zone's offset spread - 1 ms, changed_to + the window's reach + the spread), rounded out to
    whole batches. The reach is the window's size (a calendar size at its longest: 31 days a month, 366 a year);
    for a session, the end of the latest stored session that the changed rows can join or split (read from the
    model's table), or changed_to + gap. The windows come from the model's own calls (window_tvf notes them in its
    meta when dbt parses it). List cascaded models in build order: a later model's input is taken to change
    wherever an earlier one's windows do.
#}
{% macro rebuild_range(models, changed_from, changed_to) %}
    {%- set name = 'rebuild_range' -%}
    {%- set first = window_tvf._utc_instant(changed_from, name, 'changed_from') -%}
    {%- set last = window_tvf._utc_instant(changed_to, name, 'changed_to') -%}
    {%- if last <= first -%}
        {{ window_tvf._argument_error(name, 'changed_to', changed_to, "it must be after changed_from " ~ (changed_from | tojson)) }}
    {%- endif -%}
    {%- set names = window_tvf._column_names(models, name, 'models') -%}
    {%- if not names -%}
        {{ window_tvf._argument_error(name, 'models', models, "expected one or more microbatch models that call window_tvf's window macros") }}
    {%- endif -%}
    {%- set changed = namespace(start=window_tvf._batch_micros(first), end=window_tvf._batch_micros(last)) -%}
    {%- set lines, starts, ends = [], [], [] -%}
    {%- for model_name in names -%}
        {%- set node = window_tvf._microbatch_node(model_name, name) -%}
        {%- set reach = window_tvf._rebuild_reach(node, changed.start, changed.end, name) -%}
        {%- set size = node.config.batch_size -%}
        {%- set start = window_tvf._batch_floor(window_tvf._batch_instant(reach[0]), size) -%}
        {%- set end = window_tvf._batch_ceiling(window_tvf._batch_instant(reach[1]), size) -%}
        {%- do lines.append('  ' ~ model_name ~ ' (batch_size ' ~ size ~ '): window_time from '
            ~ window_tvf._batch_instant(reach[0]).isoformat() ~ ' to ' ~ window_tvf._batch_instant(reach[1]).isoformat()
            ~ ': batches ' ~ start.strftime('%Y-%m-%dT%H:%M:%S') ~ ' to ' ~ end.strftime('%Y-%m-%dT%H:%M:%S')) -%}
        {%- do starts.append(start) -%}
        {%- do ends.append(end) -%}
        {#- A cascaded model's input changes wherever this one's windows do. -#}
        {%- set changed.start = [changed.start, reach[0]] | min -%}
        {%- set changed.end = [changed.end, reach[1]] | max -%}
    {%- endfor -%}
    {%- set arguments = '--event-time-start ' ~ (starts | min).strftime('%Y-%m-%dT%H:%M:%S') ~ ' --event-time-end '
        ~ (ends | max).strftime('%Y-%m-%dT%H:%M:%S') -%}
    {%- do lines.insert(0, 'window_tvf.rebuild_range: input changed in [' ~ first.isoformat() ~ ', ' ~ last.isoformat()
        ~ '); windows to rebuild:') -%}
    {%- do lines.append('dbt run --select ' ~ names | join(' ') ~ ' ' ~ arguments) -%}
    {%- do log(lines | join('\n'), info=true) -%}
    {{ return(arguments) }}
{% endmacro %}

{#- The graph node of a microbatch model of this project or its packages. -#}
{% macro _microbatch_node(model_name, macro_name) %}
    {%- set nodes = graph.nodes.values() | selectattr('resource_type', 'equalto', 'model')
        | selectattr('name', 'equalto', model_name) | list -%}
    {%- if (nodes | length) != 1 -%}
        {{ window_tvf._argument_error(macro_name, 'models', model_name, "expected the name of a model of this project or its packages") }}
    {%- endif -%}
    {%- set node = nodes[0] -%}
    {%- if node.config.incremental_strategy != 'microbatch' or not node.config.meta.get('window_tvf', {}).get('windows') -%}
        {{ window_tvf._argument_error(macro_name, 'models', model_name,
            "expected a microbatch model (incremental_strategy 'microbatch') that calls window_tvf's window macros; this "
            ~ "one has incremental_strategy " ~ (node.config.incremental_strategy | tojson)) }}
    {%- endif -%}
    {{ return(node) }}
{% endmacro %}

{#-
    [first, last) in epoch microseconds: the window_time of every window of `node` that input changed in [from, to)
    can change. A row at instant t is in windows ending, on the zone's wall clock, after its wall time and at most a
    window size later, so their window_time lies in [t - spread - 1 ms, t + size + spread); a window over windowed
    rows (none) has its input's window_time.
-#}
{% macro _rebuild_reach(node, from_micros, to_micros, macro_name) %}
    {%- set reach = namespace(first=from_micros, last=to_micros) -%}
    {%- for spec in node.config.meta.window_tvf.windows if spec is not none -%}
        {%- set offsets = window_tvf._batch_zone_offsets(spec, none, macro_name) -%}
        {%- set spread = ((offsets | max) - (offsets | min)) * 1000000 -%}
        {%- if spec.tvf == 'session' -%}
            {%- set size = window_tvf._rebuild_session_reach(node, spec, from_micros, to_micros, offsets, macro_name) -%}
        {%- else -%}
            {%- set grid, units = window_tvf._spec_grid(spec, macro_name) -%}
            {%- set size = units * 31 * 86400000000 if grid.unit == 'months' else units -%}
        {%- endif -%}
        {%- set reach.first = [reach.first, from_micros - spread - 1000] | min -%}
        {%- set reach.last = [reach.last, to_micros + size + spread] | max -%}
    {%- endfor -%}
    {{ return([reach.first, reach.last]) }}
{% endmacro %}

{#-
    How far after the changed rows a session's window_time can move: a gap, or up to the latest stored session that
    the changed rows overlap or touch (rows added there join it to them, rows removed split it), read from the
    model's table (as wall-clock microseconds past `to`).
-#}
{% macro _rebuild_session_reach(node, spec, from_micros, to_micros, offsets, macro_name) %}
    {%- set gap = window_tvf._positive_duration(spec.gap, macro_name, 'gap') -%}
    {%- set relation = adapter.get_relation(database=node.database, schema=node.schema, identifier=node.alias) -%}
    {%- if relation is none -%}{{ return(gap) }}{%- endif -%}
    {%- set epoch = "timestamp_ntz'1970-01-01 00:00:00'" -%}
    {%- set query -%}
        select max({{ window_tvf._batch_utc_micros('window_time') }})
        from {{ relation }}
        where timestampdiff(microsecond, {{ epoch }}, window_end) >= {{ from_micros + (offsets | min) * 1000000 }}
            and timestampdiff(microsecond, {{ epoch }}, window_start) <= {{ to_micros + (offsets | max) * 1000000 + gap }}
    {%- endset -%}
    {%- set latest = run_query(query).columns[0].values()[0] -%}
    {{ return(gap if latest is none else [gap, (latest | int) + 1 - to_micros] | max) }}
{% endmacro %}
