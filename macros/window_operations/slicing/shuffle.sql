{#
    How slices reach the merge that runs over each key's slices in order (hop, cumulate, session): two plans, both
    exact, that differ only in what is shuffled.
      - 'partials': Spark aggregates the rows partially before it shuffles them by key and slice, then the slices
        go on to the merge. Few keys (many rows per key and slice): the rows shrink to a few partial rows before
        any shuffle, and hashing a few keys over the shuffle's partitions would leave most of them idle.
      - 'rows': the raw rows are shuffled once, by key; the slice GROUP BY and the merge share that shuffle. Many
        keys (a few rows per key and slice): partial aggregation saves little, and a second shuffle costs more.
    window_aggregate's `keys` argument names the plan ('few', 'many'); without it the plan follows an estimate read
    when the model compiles (_partial_reduction): of the relation, or for a name, of the table it names or the
    relation the model's CTE of that name selects from (macros/internal/cte_sources.sql). Without an estimate (a
    CTE over relations without the keys or the time column, a relation not built yet, dbt's parse phase) it is
    'rows'.
#}

{#- window_aggregate's `keys` argument: none (estimate), 'few' or 'many'. -#}
{% macro _key_count_argument(value, macro_name) %}
    {%- if value is not none and value not in ('few', 'many') -%}
        {{ window_tvf._argument_error(macro_name, 'keys', value,
            "expected 'few' (many rows per key and slice: aggregate partially before the shuffle), 'many' (a few "
            ~ "rows per key and slice: shuffle the rows once, by key) or none (chosen from the relation's data when "
            ~ "the model compiles)") }}
    {%- endif -%}
    {{ return(value) }}
{% endmacro %}

{#-
    The smallest estimated reduction of partial aggregation (input rows per partial row, within one input
    partition) for which 'partials' is chosen. Measured at 3 M rows (docs/benchmarks/window_aggregation.md): at 7
    the rows' one shuffle was faster for hop, cumulate and session; at 17 it was as fast or faster; at 21 partials
    were faster for hop and slower for cumulate; at 69 and 208 faster for both.
-#}
{% macro _partials_threshold() %}
    {{ return(32) }}
{% endmacro %}

{#-
    'partials' or 'rows' for the slices of `relation` on `grid`, grouped by `keys`; `shuffle_keys`: the keys the
    merge runs over (a session's partition keys; hop and cumulate: all of `keys`).
-#}
{% macro _slices_shuffle(relation, timecol, keys, shuffle_keys, axis, grid, key_count) %}
    {%- if key_count is not none -%}
        {{ return({'few': 'partials', 'many': 'rows'}[key_count]) }}
    {%- elif not shuffle_keys -%}
        {{ return('partials') }}
    {%- endif -%}
    {%- set reduction = window_tvf._partial_reduction(relation, timecol, keys, axis, grid) -%}
    {{ return('partials' if reduction is not none and reduction >= window_tvf._partials_threshold() else 'rows') }}
{% endmacro %}

{#-
    How much partial aggregation would shrink the rows: input rows per partial row, within one input partition
    (Spark aggregates each partition before its shuffle), estimated from a bounded sample; none when unknown (not
    a relation in the warehouse, or dbt's parse phase). Read once per relation, keys and grid in a model (kept in
    the model's context), in two queries:
      1. the relation's rows and input partitions (`count(*)` reads no column);
      2. the first `sample` rows of the scan (a LIMIT: each input partition stops after `sample` rows, 200,000
         rows read in all up to 20 partitions, 10,000 per partition beyond): the partial rows (distinct partition,
         keys and slice) among them, d, and among their first half, d_half.
    In a partition whose rows are in time order, the partial rows grow with the rows read (d = 2 d_half) and the
    sample's reduction holds for the whole partition. In one whose rows are in no order, they level off: with
    d(x) = G (1 - exp(-x / t)) for the first x rows, d / d_half = 1 + e with e = exp(-sample / (2 t)), so
    G = d / (1 - e^2), and a partition of R rows makes G (1 - e^(2 R / sample)) partial rows.
-#}
{% macro _partial_reduction(relation, timecol, keys, axis, grid) %}
    {#- A microbatch batch's input (macros/internal/microbatch.sql) is estimated on the relation it reads: dbt's
        filter to the batch renders it with the batch's rows, about as many per key and slice as the batch reads. -#}
    {%- set relation = context.get('window_tvf__batch_relations', {}).get(relation, relation)
        if relation is string else relation -%}
    {#- A name (a CTE of the model, or a table) is estimated on the relation it is, or is built on, that has the
        keys and the time column (macros/internal/cte_sources.sql): a filter or projection of it groups alike. -#}
    {%- set named = relation if relation is string else none -%}
    {%- if named is not none -%}
        {%- set relation = window_tvf._built_on(named, [timecol] + keys) -%}
    {%- endif -%}
    {%- if not execute or relation is none or relation is string or not window_tvf._known_columns(relation) -%}
        {{ return(none) }}
    {%- endif -%}
    {%- set cache = context.get('window_tvf__partial_reduction', {}) -%}
    {%- set cache_key = [relation | string, keys, timecol, axis, grid] | tojson -%}
    {%- if cache_key not in cache -%}
        {%- set began = modules.datetime.datetime.now() -%}
        {%- set counted = run_query(window_tvf._partition_count_sql(relation)).rows[0] -%}
        {%- set table_rows, partitions = counted[0] | int, [counted[1] | int, 1] | max -%}
        {%- set sample = [[200000 // partitions, 10000] | max, 100000] | min -%}
        {%- set counts = run_query(window_tvf._partial_sample_sql(relation, timecol, keys, axis, grid, sample)).rows[0] -%}
        {%- set d, d_half, sampled = counts[0] | int, counts[1] | int, (counts[2] or 0) | int -%}
        {%- set rows_per_partition = table_rows / partitions -%}
        {%- if d == 0 -%}
            {%- set reduction = none -%}
        {%- elif sampled < sample or rows_per_partition <= sample or d_half == 0 -%}
            {%- set reduction = sampled / d -%}
        {%- else -%}
            {%- set e = [[d / d_half - 1, 0] | max, 1] | min -%}
            {%- if e >= 0.999 -%}
                {%- set reduction = sampled / d -%}
            {%- else -%}
                {%- set partition_partials = d / (1 - e * e) * (1 - e ** (2 * rows_per_partition / sample)) -%}
                {%- set reduction = rows_per_partition / [partition_partials, 1] | max -%}
            {%- endif -%}
        {%- endif -%}
        {%- do cache.update({cache_key: reduction}) -%}
        {%- do context.update({'window_tvf__partial_reduction': cache}) -%}
        {%- set seconds = (modules.datetime.datetime.now() - began).total_seconds() -%}
        {%- set threshold = window_tvf._partials_threshold() -%}
        {{ log('window_tvf: partial aggregation of ' ~ relation ~ (' (which ' ~ named ~ ' reads)' if named is not none
            and named | trim != relation | string else '') ~ ' by ' ~ (keys | join(', ')) ~ ' and slices of '
            ~ grid.period ~ ' ' ~ grid.unit ~ ': about ' ~ ('%.1f' | format(reduction) if reduction is not none else 'unknown')
            ~ ' rows per partial row (' ~ table_rows ~ ' rows in ' ~ partitions ~ ' partitions; ' ~ d
            ~ ' partial rows in the first ' ~ sampled ~ ' rows, ' ~ d_half ~ ' in their first half; read in '
            ~ '%.2f' | format(seconds) ~ ' s): ' ~ ('partial aggregation before the shuffle' if reduction is not none
            and reduction >= threshold else 'the rows shuffled once, by key') ~ " (keys='few' or 'many' skips this)",
            info=true) }}
    {%- endif -%}
    {{ return(cache[cache_key]) }}
{% endmacro %}

{#- The relation's rows and input partitions (the highest partition number + 1); reads no column. -#}
{% macro _partition_count_sql(relation) %}
    select count(*), max(window_tvf__partition) + 1
    from (select spark_partition_id() as window_tvf__partition from {{ relation }}) as partitioned
{%- endmacro %}

{#-
    Among the first `sample` rows with a time: the partial rows (distinct input partition, keys and slice), those
    seen in the first half of the sample, and the rows read. The LIMIT leaves one partition: counted there, with no
    shuffle of its own.
-#}
{% macro _partial_sample_sql(relation, timecol, keys, axis, grid, sample) %}
    select
        size(array_distinct(collect_list(window_tvf__group))) as partial_rows,
        size(array_distinct(collect_list(if(window_tvf__row < {{ sample // 2 }}, window_tvf__group, null))))
            as first_half_partial_rows,
        count(*) as sampled_rows
    from (
        select window_tvf__group, monotonically_increasing_id() as window_tvf__row
        from (
            select
                xxhash64(spark_partition_id(), {% for key in keys %}{{ key }}, {% endfor -%}
                    {{ window_tvf._grid_cell_start(grid, 'window_tvf__position') }}) as window_tvf__group
            from ({{ window_tvf._positioned_rows(relation, timecol, axis, grid) }}) as positioned
            limit {{ sample }}
        ) as sampled
    ) as numbered
{%- endmacro %}
