{#
    Flink's window Top-N: the first `n` rows of each window (and of each `partition_by` group within it) by
    `order_by`. Ties are broken deterministically: after `order_by`, rows are ordered by all their columns, so equal
    rows are interchangeable and the same rows come out on every run. Returns the windowed rows (input columns and
    window columns), plus the row's position as `rank_column` when one is named (Flink's rownum).
#}
{% macro window_topn(relation, window, n, order_by, partition_by=none, rank_column=none) %}
    {%- set scope = window_tvf._batch_scope('window_topn', [[relation, window]]) -%}
    {{ return(window_tvf._batch_windows(scope, adapter.dispatch('window_topn', 'window_tvf')(
        scope.relations[0], window, n, order_by, partition_by, rank_column), window_tvf._batch_row_columns(relation))) }}
{% endmacro %}

{% macro default__window_topn(relation, window, n, order_by, partition_by=none, rank_column=none) %}
    {%- set n = window_tvf._positive_integer(n, 'window_topn', 'n') -%}
    {%- set ordering = window_tvf._order_by(order_by, 'window_topn', 'order_by', 'ranked_input') -%}
    {{ return(window_tvf._first_rows(
        window_tvf._windowed(relation, window, 'window_topn'), n, ordering,
        window_tvf._window_partition(partition_by, 'window_topn'), rank_column, 'window_topn',
        columns=window_tvf._windowed_columns(relation, window))) }}
{% endmacro %}


{#- Window columns plus the `partition_by` keys, qualified for _first_rows. -#}
{% macro _window_partition(partition_by, macro_name) %}
    {%- set partition = ['ranked_input.window_start', 'ranked_input.window_end'] -%}
    {%- for key in window_tvf._column_names(partition_by, macro_name, 'partition_by') -%}
        {%- do partition.append('ranked_input.' ~ key) -%}
    {%- endfor -%}
    {{ return(partition) }}
{% endmacro %}
