{#-
    Session windows by group, in one sort: sessions are numbered over each partition's rows in time order
    (_session_numbers), then grouped once per session and group. When every aggregate merges from partial results
    (merge_plan.sql), the rows are first reduced to gap buckets (below), and the sort numbers buckets
    instead of rows. A session's bounds belong to the whole session: when group_by has keys beyond the session's
    partition keys, several groups share one session, so the bounds are taken over the session's groups (a window
    over the grouped rows, which are far fewer than the input rows). `plan`: the merge plan (typed, types.sql), or
    none when some aggregate does not merge.
-#}
{% macro _session_aggregate_sql(relation, spec, keys, measures, plan, axis, key_count) %}
    {%- set gap = window_tvf._positive_duration(spec.gap, 'window_aggregate', 'gap') -%}
    {%- set partition_keys = window_tvf._column_names(spec.get('partition_by'), 'window_aggregate', 'partition_by') -%}
    {%- set extra_keys = keys | reject('in', partition_keys) | list -%}
    {%- set by_session = 'partition by ' ~ (partition_keys + ['window_tvf__session']) | join(', ') -%}
    {%- set grouped_columns, final_columns = [], [] -%}
    {%- if plan is none -%}
        {%- set numbered = window_tvf._numbered_sessions(relation, spec.timecol, gap, 'source_rows.*', partition_keys, axis) -%}
        {%- set like = 'min(' ~ spec.timecol ~ ')' -%}
        {%- for name, call in measures.items() -%}
            {%- do grouped_columns.append(window_tvf._row_aggregate(call) ~ ' as ' ~ name) -%}
            {%- do final_columns.append(name) -%}
        {%- endfor -%}
    {%- else -%}
        {#-
            Partial results per group and gap bucket (the slices of a gap-long grid), with each bucket's first time
            and last time + gap. Two times in one bucket are less than a gap apart, so a bucket lies within one
            session, and a bucket reaches the next exactly when its last time + gap does: numbering the buckets by
            their first time gives the sessions that numbering the rows gives, and the sort orders buckets, not
            rows (a bidder's burst of bids within 10 seconds is one bucket). The rows are shuffled once, by the
            partition keys, for both the bucket GROUP BY and the numbering: with sparse keys (about one row per
            bucket) partial aggregation before a shuffle of its own saves nothing and the second shuffle costs more
            (docs/benchmarks/window_aggregation.md); with dense buckets (Nexmark q11) it would be faster.
        -#}
        {%- set span = {'partials': [('window_tvf__time', 'min(window_tvf__position)', 'min'),
            ('window_tvf__row_end', 'max(window_tvf__position) + ' ~ gap, 'max')]} -%}
        {%- set bucket_grid = {'unit': 'micros', 'period': gap, 'offset': 0} -%}
        {%- set shuffle = window_tvf._slices_shuffle(relation, spec.timecol, partition_keys + extra_keys, partition_keys,
            axis, bucket_grid, key_count) -%}
        {%- set buckets = window_tvf._slices_sql(relation, spec.timecol, partition_keys + extra_keys, plan + [span], axis,
            bucket_grid, shuffle_by=partition_keys if shuffle == 'rows' else []) -%}
        {%- set numbered = window_tvf._session_numbers(buckets, partition_keys) -%}
        {%- set like = 'min(window_tvf__like)' -%}
        {%- for column, partial, merge in window_tvf._partial_columns(plan) -%}
            {%- do grouped_columns.append(window_tvf._merge_call(merge, column) ~ ' as ' ~ column) -%}
        {%- endfor -%}
        {%- for measure in plan | rejectattr('hidden', 'defined') -%}
            {%- do final_columns.append(measure.final ~ ' as ' ~ measure.name) -%}
        {%- endfor -%}
    {%- endif -%}
select
    {{ window_tvf._window_columns(axis, 'window_tvf__start', 'window_tvf__end', 'window_tvf__like') }},
    {%- for key in keys %}
    {{ key }},
    {%- endfor %}
    {%- for column in final_columns %}
    {{ column }}{{ ',' if not loop.last }}
    {%- endfor %}
from (
    select
        grouped.*
        {%- if extra_keys %},
        min(window_tvf__group_start) over ({{ by_session }}) as window_tvf__start,
        max(window_tvf__group_end) over ({{ by_session }}) as window_tvf__end
        {%- else %},
        window_tvf__group_start as window_tvf__start,
        window_tvf__group_end as window_tvf__end
        {%- endif %}
    from (
        select
            {% for key in partition_keys %}{{ key }}, {% endfor -%}
            window_tvf__session,
            {%- for key in extra_keys %}
            {{ key }},
            {%- endfor %}
            min(window_tvf__time) as window_tvf__group_start,
            max(window_tvf__row_end) as window_tvf__group_end,
            {%- if axis.type is none %}
            {{ like }} as window_tvf__like,
            {%- endif %}
            {%- for column in grouped_columns %}
            {{ column }}{{ ',' if not loop.last }}
            {%- endfor %}
        from (
            {{ numbered }}
        ) as numbered
        group by {% for key in partition_keys %}{{ key }}, {% endfor %}window_tvf__session
            {%- for key in extra_keys %}, {{ key }}{% endfor %}
    ) as grouped
) as sessions
{{- window_tvf._typed_window(plan or [], partition_keys + ['window_tvf__session'] + extra_keys, 'window_tvf__start') }}
{%- endmacro %}
