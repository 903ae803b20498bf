{#
    Flink's Table.topn: at most `n` rows per `partition_by` group, by `order_by` (items with asc/desc and
    nulls first/last). The reference's SQL writes `rownum = 3`; its meaning, followed here, is `rownum <= n`.
    Ties are broken by the whole row. `rank_column`, when named, holds each row's position.
#}
{% macro topn(relation, n, partition_by, order_by, rank_column=none) %}
    {{ return(adapter.dispatch('topn', 'window_tvf')(relation, n, partition_by, order_by, rank_column)) }}
{% endmacro %}

{% macro default__topn(relation, n, partition_by, order_by, rank_column=none) %}
    {%- set n = window_tvf._positive_integer(n, 'topn', 'n') -%}
    {%- set relation = window_tvf._relation(relation, 'topn') -%}
    {%- set columns = window_tvf._known_columns(relation) -%}
    {%- set partition = [] -%}
    {%- for key in window_tvf._column_names(partition_by, 'topn', 'partition_by') -%}
        {%- do window_tvf._existing_columns([key], columns, relation, 'topn', 'partition_by') -%}
        {%- do partition.append('ranked_input.' ~ key) -%}
    {%- endfor -%}
    {%- set ordering = window_tvf._order_by(order_by, 'topn', 'order_by', 'ranked_input', relation=relation, columns=columns) -%}
    {%- if rank_column is string and (window_tvf._unquoted(rank_column) | lower) in columns -%}
        {{ window_tvf._argument_error('topn', 'rank_column', rank_column,
            relation ~ " already has a column of that name, which the output would repeat; pick another name") }}
    {%- endif -%}
    {{ return(window_tvf._first_rows('select * from ' ~ relation, n, ordering, partition, rank_column, 'topn',
        columns=window_tvf._known_column_names(relation))) }}
{% endmacro %}
