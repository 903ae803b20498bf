{#
    Flink's window aggregation: GROUP BY window_start, window_end plus keys, optionally with GROUPING SETS, ROLLUP
    or CUBE over the keys. Output: window_start, window_end, window_time, the keys, the aggregates.

    window:     a window spec (see apply_window), or none when `relation` is already the output of a windowing TVF
    group_by:   key column(s); none for one row per window
    aggregates: {output name: aggregate call}, e.g. {'price': 'sum(price)', 'bids': 'count(*)'}
    grouping:   none, 'rollup', 'cube', or a list of grouping sets such as [['item', 'supplier'], ['item'], []]
    strategy:   'auto' (slices when every aggregate merges, and for tumble always; see slicing/slices.sql),
                'slices' (the same, but an error when slicing is impossible) or 'rows' (assign rows to windows,
                then GROUP BY)
    keys:       sliced hop, cumulate and session windows: 'few' (many rows per key and slice: partial aggregation
                before the shuffle), 'many' (about one row per key and slice: the rows shuffled once, by key) or
                none (chosen from the relation's data when the model compiles; see slicing/shuffle.sql)
    emit:       'on_update' (every window, the default), 'on_update_flagged' (plus is_final) or 'on_window_close'
                (only final windows: window_time <= watermark; a session's window_time < watermark); see
                macros/internal/finality.sql and docs/final_windows.md
    watermark:  with emit other than 'on_update': none (the largest time less the spec's allowed_lateness), an
                ISO 8601 time, or a SQL expression of a timestamp
#}
{% macro window_aggregate(relation, window, group_by, aggregates, grouping=none, strategy='auto', keys=none,
        emit='on_update', watermark=none) %}
    {%- set scope = window_tvf._batch_scope('window_aggregate', [[relation, window]]) -%}
    {%- set windows = adapter.dispatch('window_aggregate', 'window_tvf')(
        scope.relations[0], window, group_by, aggregates, grouping, strategy, keys) -%}
    {{ return(window_tvf._batch_windows(scope,
        window_tvf._emit_windows(windows, 'window_aggregate', emit, watermark, relation, window),
        window_tvf._column_names(group_by, 'window_aggregate', 'group_by'))) }}
{% endmacro %}

{% macro default__window_aggregate(relation, window, group_by, aggregates, grouping=none, strategy='auto', keys=none) %}
    {%- set key_count = window_tvf._key_count_argument(keys, 'window_aggregate') -%}
    {%- set keys = window_tvf._column_names(group_by, 'window_aggregate', 'group_by') -%}
    {%- set measures = window_tvf._aggregates(aggregates, 'window_aggregate') -%}
    {%- do window_tvf._check_sketch_columns(relation, measures, 'window_aggregate') -%}
    {%- if strategy not in ('auto', 'slices', 'rows') -%}
        {{ window_tvf._argument_error('window_aggregate', 'strategy', strategy, "expected 'auto', 'slices' or 'rows'") }}
    {%- endif -%}
    {%- set sliced = none if strategy == 'rows' else window_tvf._sliced_aggregate(relation, window, keys, measures, grouping, key_count) -%}
    {%- if sliced is not none -%}
        {{ return(sliced) }}
    {%- elif strategy == 'slices' -%}
        {{ window_tvf._argument_error('window_aggregate', 'strategy', strategy,
            "slicing needs a tumble, hop or cumulate window spec (or a session whose partition keys are in group_by), "
            ~ "no grouping sets, aggregates that read neither window columns nor * (count(*) aside) and, except for "
            ~ "tumble and session, aggregates that merge: count, count_if, sum, min, max, avg, bool_and/every, bool_or/some, "
            ~ "count(distinct x) of one value without FILTER, and the approx_distinct forms; avg merges when the input's "
            ~ "types are known when the model compiles (a ref(), a source(), a table name or a CTE of the model whose "
            ~ "relations exist) and a decimal input is at most decimal(24,s) (decimal(22+s,s) for s < 2)") }}
    {%- endif -%}
    {{ return(window_tvf._row_aggregate_sql(relation, window, keys, measures, window_tvf._grouping_clause(keys, grouping))) }}
{% endmacro %}


{#- The row path: rows assigned to their windows (the TVF), then one GROUP BY. -#}
{% macro _row_aggregate_sql(relation, window, keys, measures, grouping_clause) %}
    {%- set prefix = window_tvf._row_window_prefix(relation, window, measures) -%}
    {%- set window_columns = [] -%}
    {%- for column in ['window_start', 'window_end', 'window_time'] -%}
        {%- do window_columns.append(prefix ~ column) -%}
    {%- endfor -%}
select
    {%- for column in window_columns %}
    {{ column }}{{ ' as ' ~ column[prefix | length:] if prefix }},
    {%- endfor %}
    {%- for key in keys %}
    {{ key }},
    {%- endfor %}
    {%- for name, call in measures.items() %}
    {{ window_tvf._row_aggregate(call) }} as {{ name }}{{ ',' if not loop.last }}
    {%- endfor %}
from ({{ window_tvf._windowed(relation, window, 'window_aggregate', prefix) }}) as windowed_rows
group by {{ window_columns | join(', ') }}{{ ', ' ~ grouping_clause if grouping_clause }}
{%- endmacro %}

{#- The GROUP BY clause after the window columns: the keys, or the grouping sets, ROLLUP or CUBE over them. -#}
{% macro _grouping_clause(keys, grouping) %}
    {%- set key_list = keys | join(', ') -%}
    {%- if grouping is none -%}
        {{ return(key_list) }}
    {%- elif grouping in ('rollup', 'cube') and keys -%}
        {{ return(grouping ~ '(' ~ key_list ~ ')') }}
    {%- elif grouping is not string and grouping is iterable and grouping is not mapping and grouping | length > 0 -%}
        {%- set sets = [] -%}
        {%- for grouping_set in grouping -%}
            {%- set set_keys = window_tvf._column_names(grouping_set, 'window_aggregate', 'grouping') -%}
            {%- for key in set_keys if key not in keys -%}
                {{ window_tvf._argument_error('window_aggregate', 'grouping', grouping,
                    "grouping set column '" ~ key ~ "' is not in group_by " ~ (keys | tojson)) }}
            {%- endfor -%}
            {%- do sets.append('(' ~ set_keys | join(', ') ~ ')') -%}
        {%- endfor -%}
        {{ return('grouping sets (' ~ sets | join(', ') ~ ')') }}
    {%- endif -%}
    {{ window_tvf._argument_error('window_aggregate', 'grouping', grouping,
        "expected none, 'rollup', 'cube' (with group_by keys) or a list of grouping sets such as [['item'], []]") }}
{% endmacro %}

{#-
    The row path's name prefix for the windows' columns: the input may be windowed rows already (a cascade, as on
    the sliced path), so the new windows' columns are window_tvf__window_start, ... until the output names them. An
    aggregate that reads window_start, window_end or window_time (or every column) reads the new windows' columns
    under their own names, so the input must not have them: a compile error when its columns are known.
-#}
{% macro _row_window_prefix(relation, window, measures) %}
    {%- if window is none -%}{{ return('') }}{%- endif -%}
    {%- if not window_tvf._reads_window_rows(measures) -%}{{ return('window_tvf__') }}{%- endif -%}
    {%- set relation = context.get('window_tvf__batch_relations', {}).get(relation, relation) if relation is string
        else relation -%}
    {%- set columns = window_tvf._known_columns(relation) -%}
    {%- for column in ['window_start', 'window_end', 'window_time'] if column in columns -%}
        {{ window_tvf._argument_error('window_aggregate', 'relation', relation | string,
            "it already has a column named " ~ column ~ ", and an aggregate reads the windows' own window_start, "
            ~ "window_end or window_time (or every column: *), which the input's would shadow; rename the input's "
            ~ "window columns first (as Flink's cascading example does: select window_time as rowtime, ...)") }}
    {%- endfor -%}
    {{ return('') }}
{% endmacro %}


{#-
    The windowed rows: the TVF for a window spec, or the relation itself when it is already windowed.
    `window_prefix`: see _window_rows (apply_window.sql).
-#}
{% macro _windowed(relation, window, macro_name, window_prefix='') %}
    {%- if window is none -%}
        {{ return('select * from ' ~ window_tvf._relation(relation, macro_name)) }}
    {%- elif window_prefix -%}
        {{ return(window_tvf._window_rows(relation, window_tvf._window_spec(window, macro_name), window_prefix)) }}
    {%- endif -%}
    {{ return(window_tvf.apply_window(relation, window_tvf._window_spec(window, macro_name))) }}
{% endmacro %}


{#- Aggregates: {name: 'function(arguments)'} with a Spark aggregate function. Returns the dict. -#}
{% macro _aggregates(aggregates, macro_name) %}
    {%- set functions = [
        'any_value', 'approx_count_distinct', 'approx_percentile', 'array_agg', 'avg', 'bit_and', 'bit_or', 'bit_xor',
        'bool_and', 'bool_or', 'collect_list', 'collect_set', 'corr', 'count', 'count_if', 'covar_pop', 'covar_samp',
        'every', 'first', 'first_value', 'kurtosis', 'last', 'last_value', 'listagg', 'max', 'max_by', 'mean',
        'median', 'min', 'min_by', 'mode', 'percentile', 'percentile_approx', 'product', 'skewness', 'some',
        'std', 'stddev', 'stddev_pop', 'stddev_samp', 'string_agg', 'sum', 'try_avg', 'try_sum', 'var_pop',
        'var_samp', 'variance',
    ] -%}
    {%- set sketch_forms = window_tvf._sketch_forms() -%}
    {%- set allowed = "expected {output name: aggregate call} such as {'price': 'sum(price)', 'bids': 'count(*)'}, "
        ~ "each call one of Spark's aggregate functions: " ~ functions | join(', ')
        ~ "; or a distinct-count sketch: " ~ sketch_forms.keys() | join(', ') -%}
    {%- if aggregates is not mapping or (aggregates | length) == 0 -%}
        {{ window_tvf._argument_error(macro_name, 'aggregates', aggregates, allowed) }}
    {%- endif -%}
    {%- for name, call in aggregates.items() -%}
        {%- do window_tvf._column_name(name, macro_name, 'aggregates') -%}
        {%- set match = modules.re.match("^\s*([A-Za-z_][A-Za-z0-9_]*)\s*\(.*\)\s*$", call if call is string else '', modules.re.DOTALL) -%}
        {%- if not match or (match.group(1) | lower) not in functions + sketch_forms.keys() | list or ';' in call -%}
            {{ window_tvf._argument_error(macro_name, 'aggregates', {name: call}, allowed) }}
        {%- endif -%}
        {%- do window_tvf._sketch_call(name, call, macro_name) -%}
    {%- endfor -%}
    {{ return(aggregates) }}
{% endmacro %}
