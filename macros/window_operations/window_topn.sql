{#
    Flink's window Top-N: the first `n` rows of each window (and of each `partition_by` group within it) by
    `order_by`. Ties are broken deterministically: after `order_by`, rows are ordered by all their columns, so equal
    rows are interchangeable and the same rows come out on every run. Returns the windowed rows (input columns and
    window columns), plus the row's position as `rank_column` when one is named (Flink's rownum).
#}
{% macro window_topn(relation, window, n, order_by, partition_by=none, rank_column=none) %}
    {{ return(adapter.dispatch('window_topn', 'window_tvf')(relation, window, n, order_by, partition_by, rank_column)) }}
{% endmacro %}

{% macro default__window_topn(relation, window, n, order_by, partition_by=none, rank_column=none) %}
    {%- set n = window_tvf._positive_integer(n, 'window_topn', 'n') -%}
    {{ return(window_tvf._first_rows_per_window(relation, window, n, order_by, partition_by, rank_column, 'window_topn')) }}
{% endmacro %}


{#-
    The first `n` rows per window and partition, ordered by `order_by` and then by the whole row.
    Shared by window_topn and window_deduplicate.
-#}
{% macro _first_rows_per_window(relation, window, n, order_by, partition_by, rank_column, macro_name) %}
    {%- set keys = window_tvf._column_names(partition_by, macro_name, 'partition_by') -%}
    {%- set ordering = window_tvf._order_by(order_by, macro_name, 'order_by', 'windowed_rows') -%}
    {%- if rank_column is not none -%}
        {%- do window_tvf._column_name(rank_column, macro_name, 'rank_column') -%}
    {%- endif -%}
    {%- set partition = ['windowed_rows.window_start', 'windowed_rows.window_end'] -%}
    {%- for key in keys -%}{%- do partition.append('windowed_rows.' ~ key) -%}{%- endfor -%}
select
    ranked_rows.windowed_row.*{{ ',' if rank_column }}
    {%- if rank_column %}
    ranked_rows.row_position as {{ rank_column }}
    {%- endif %}
from (
    select
        struct(windowed_rows.*) as windowed_row,
        row_number() over (
            partition by {{ partition | join(', ') }}
            order by {{ ordering | join(', ') }}, struct(windowed_rows.*)
        ) as row_position
    from ({{ window_tvf._windowed(relation, window, macro_name) }}) as windowed_rows
) as ranked_rows
where ranked_rows.row_position <= {{ n }}
{%- endmacro %}
