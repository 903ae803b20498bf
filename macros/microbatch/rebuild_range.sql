{#
    Which batches to rebuild after the input of microbatch window models changed in [changed_from, changed_to)
    (a backfilled or corrected hour, late data that a scheduled run's lookback does not reach):

        dbt run-operation window_tvf.rebuild_range --args '{models: [fct_sales_hop_microbatch],
            changed_from: "2026-11-01T07:00:00Z", changed_to: "2026-11-01T08:00:00Z"}'

    prints each model's range of window_time that can change and the `dbt run`s that rebuild them. A model's input
    changed in [changed_from, changed_to), and, when it reads a listed model (directly or through models not
    listed), wherever that model's windows can change; its windows can change in [input start - the zone's offset
    spread - 1 ms, input end + the window's reach + the spread), rounded out to whole batches. The reach is the
    window's size (a calendar size at its longest: 31 days a month, 366 a year); for a session, the end of the latest
    stored session that the changed rows can join or split (read from the model's table), or the input's end + gap.
    The windows come from the model's own calls (window_tvf notes them in its meta when dbt parses it), which model
    reads which from the manifest (depends_on). Models whose batches are the same share one `dbt run`; the runs are
    printed in an order that builds every model after the listed models it reads.
#}
{% macro rebuild_range(models, changed_from, changed_to) %}
    {%- set name = 'rebuild_range' -%}
    {%- set first = window_tvf._utc_instant(changed_from, name, 'changed_from') -%}
    {%- set last = window_tvf._utc_instant(changed_to, name, 'changed_to') -%}
    {%- if last <= first -%}
        {{ window_tvf._argument_error(name, 'changed_to', changed_to, "it must be after changed_from " ~ (changed_from | tojson)) }}
    {%- endif -%}
    {%- set names = window_tvf._column_names(models, name, 'models') | unique | list -%}
    {%- if not names -%}
        {{ window_tvf._argument_error(name, 'models', models, "expected one or more microbatch models that call window_tvf's window macros") }}
    {%- endif -%}
    {%- set nodes = {} -%}
    {%- for model_name in names -%}
        {%- do nodes.update({model_name: window_tvf._microbatch_node(model_name, name)}) -%}
    {%- endfor -%}
    {%- set upstream = window_tvf._rebuild_upstream(nodes) -%}
    {%- set changed = [window_tvf._batch_micros(first), window_tvf._batch_micros(last)] -%}
    {%- set lines = ['window_tvf.rebuild_range: input changed in [' ~ first.isoformat() ~ ', ' ~ last.isoformat()
        ~ '); windows to rebuild:'] -%}
    {%- set ranges = {} -%}
    {%- for model_name in window_tvf._rebuild_order(names, upstream, none) -%}
        {%- do ranges.update({model_name: window_tvf._rebuild_model_range(nodes[model_name], upstream[model_name], ranges, changed, name)}) -%}
        {%- do lines.append(ranges[model_name].line) -%}
    {%- endfor -%}
    {%- set runs = window_tvf._rebuild_runs(names, upstream, ranges) -%}
    {%- do lines.append('dbt run that rebuilds them:' if (runs | length) == 1 else (runs | length)
        ~ ' dbt runs that rebuild them, in this order (a model after the listed models it reads):') -%}
    {%- set arguments = [] -%}
    {%- for run in runs -%}
        {%- do arguments.append('--select ' ~ run.models | join(' ') ~ ' ' ~ run.flags) -%}
        {%- do lines.append('dbt run ' ~ arguments[-1]) -%}
    {%- endfor -%}
    {%- do log(lines | join('\n'), info=true) -%}
    {#- One run: its two flags (as when all models shared one range); several: each run's arguments, in order. -#}
    {{ return(runs[0].flags if (runs | length) == 1 else arguments) }}
{% endmacro %}

{#-
    Each listed model's listed upstream models: those it reads, directly or through models that are not listed (a
    view, an ephemeral model, a table rebuilt apart), from the manifest's depends_on. A listed model stops the walk:
    what feeds it reaches the model through it.
-#}
{% macro _rebuild_upstream(nodes) %}
    {%- set listed = {} -%}
    {%- for model_name, node in nodes.items() -%}
        {%- do listed.update({node.unique_id: model_name}) -%}
    {%- endfor -%}
    {%- set upstream = {} -%}
    {%- for model_name, node in nodes.items() -%}
        {%- set found, seen, queue = [], {}, node.depends_on.nodes | list -%}
        {#- queue grows while the loop walks it: a breadth-first walk of the ancestors. -#}
        {%- for unique_id in queue if unique_id not in seen -%}
            {%- do seen.update({unique_id: true}) -%}
            {%- if unique_id in listed -%}
                {%- if listed[unique_id] not in found -%}{%- do found.append(listed[unique_id]) -%}{%- endif -%}
            {%- elif unique_id in graph.nodes -%}
                {%- do queue.extend(graph.nodes[unique_id].get('depends_on', {}).get('nodes', [])) -%}
            {%- endif -%}
        {%- endfor -%}
        {%- do upstream.update({model_name: found}) -%}
    {%- endfor -%}
    {{ return(upstream) }}
{% endmacro %}

{#-
    The listed models in an order that puts every model after its listed upstream models: each time, of the models
    whose upstream models are all placed, the one first by `ranges` (its batches' length, then their start), then by
    the list's order (ranges none: the list's order alone).
-#}
{% macro _rebuild_order(names, upstream, ranges) %}
    {%- set order = [] -%}
    {%- for _ in names -%}
        {%- set ready = [] -%}
        {%- for model_name in names -%}
            {%- if model_name not in order and not (upstream[model_name] | reject('in', order) | list) -%}
                {%- set range = none if ranges is none else ranges[model_name] -%}
                {%- do ready.append([[] if range is none else [range.end - range.start, range.start], loop.index0, model_name]) -%}
            {%- endif -%}
        {%- endfor -%}
        {%- do order.append((ready | sort | first)[-1]) -%}
    {%- endfor -%}
    {{ return(order) }}
{% endmacro %}

{#-
    One listed model's changes: its input changed in [changed] and wherever its listed upstream models' windows can
    change (`ranges`, already computed for them); returns {'reach': [first, last) of window_time in epoch
    microseconds, 'start', 'end': its batches, 'line': what rebuild_range prints for it}.
-#}
{% macro _rebuild_model_range(node, reads, ranges, changed, macro_name) %}
    {%- set firsts, lasts = [changed[0]], [changed[1]] -%}
    {%- for upstream_name in reads -%}
        {%- do firsts.append(ranges[upstream_name].reach[0]) -%}
        {%- do lasts.append(ranges[upstream_name].reach[1]) -%}
    {%- endfor -%}
    {%- set input = [firsts | min, lasts | max] -%}
    {%- set reach = window_tvf._rebuild_reach(node, input[0], input[1], macro_name) -%}
    {%- set size = node.config.batch_size -%}
    {%- set start = window_tvf._batch_floor(window_tvf._batch_instant(reach[0]), size) -%}
    {%- set end = window_tvf._batch_ceiling(window_tvf._batch_instant(reach[1]), size) -%}
    {%- set reading = '' if not reads else '; reads ' ~ reads | join(', ') ~ ': input changed in ['
        ~ window_tvf._batch_instant(input[0]).isoformat() ~ ', ' ~ window_tvf._batch_instant(input[1]).isoformat() ~ ')' -%}
    {{ return({'reach': reach, 'start': start, 'end': end, 'line': '  ' ~ node.name ~ ' (batch_size ' ~ size ~ reading
        ~ '): window_time from ' ~ window_tvf._batch_instant(reach[0]).isoformat() ~ ' to '
        ~ window_tvf._batch_instant(reach[1]).isoformat() ~ ': batches ' ~ start.strftime('%Y-%m-%dT%H:%M:%S')
        ~ ' to ' ~ end.strftime('%Y-%m-%dT%H:%M:%S')}) }}
{% endmacro %}

{#-
    The `dbt run`s that rebuild every model's batches and no others, as [{'models', 'flags'}]: models with the same
    batches share a run, and a run comes after those of the listed models its models read. Models are placed
    shortest range first (a model's range holds its upstream models' when their batches align), each in the first
    run with its batches that comes no earlier than its upstream models' runs, else in a new run at the end.
-#}
{% macro _rebuild_runs(names, upstream, ranges) %}
    {%- set groups, group_of = [], {} -%}
    {%- for model_name in window_tvf._rebuild_order(names, upstream, ranges) -%}
        {%- set range = ranges[model_name] -%}
        {%- set earliest = [0] -%}
        {%- for upstream_name in upstream[model_name] -%}
            {%- do earliest.append(group_of[upstream_name]) -%}
        {%- endfor -%}
        {%- set placed = namespace(index=none) -%}
        {%- for group in groups -%}
            {%- if placed.index is none and loop.index0 >= (earliest | max) and group.start == range.start and group.end == range.end -%}
                {%- set placed.index = loop.index0 -%}
            {%- endif -%}
        {%- endfor -%}
        {%- if placed.index is none -%}
            {%- set placed.index = groups | length -%}
            {%- do groups.append({'start': range.start, 'end': range.end, 'models': []}) -%}
        {%- endif -%}
        {%- do groups[placed.index].models.append(model_name) -%}
        {%- do group_of.update({model_name: placed.index}) -%}
    {%- endfor -%}
    {%- set runs = [] -%}
    {%- for group in groups -%}
        {%- do runs.append({'models': group.models, 'flags': '--event-time-start ' ~ group.start.strftime('%Y-%m-%dT%H:%M:%S')
            ~ ' --event-time-end ' ~ group.end.strftime('%Y-%m-%dT%H:%M:%S')}) -%}
    {%- endfor -%}
    {{ return(runs) }}
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
