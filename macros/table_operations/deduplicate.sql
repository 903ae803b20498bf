{#
    Flink's Table.deduplicate: one row per `partition_by` key, the first (or last) by `order_by`. NULL keys form
    their own group, so rows with NULL keys are kept (dbt_utils.deduplicate's natural-join approach drops them on
    Spark). Ties in order_by are broken by the whole row, so the kept row is the same on every run; keep='last'
    keeps the row that keep='first' would rank last. Works on any relation or CTE, whatever its column count; the
    columns of a ref()/source() relation are checked at compile time.
#}
{% macro deduplicate(relation, partition_by, order_by, keep='first') %}
    {{ return(adapter.dispatch('deduplicate', 'window_tvf')(relation, partition_by, order_by, keep)) }}
{% endmacro %}

{% macro default__deduplicate(relation, partition_by, order_by, keep='first') %}
    {%- if keep not in ('first', 'last') -%}
        {{ window_tvf._argument_error('deduplicate', 'keep', keep, "expected 'first' or 'last'") }}
    {%- endif -%}
    {%- set relation = window_tvf._relation(relation, 'deduplicate') -%}
    {%- set columns = window_tvf._known_columns(relation) -%}
    {%- set partition = [] -%}
    {%- for key in window_tvf._column_names(partition_by, 'deduplicate', 'partition_by') -%}
        {%- do window_tvf._existing_columns([key], columns, relation, 'deduplicate', 'partition_by') -%}
        {%- do partition.append('ranked_input.' ~ key) -%}
    {%- endfor -%}
    {%- if not partition -%}
        {{ window_tvf._argument_error('deduplicate', 'partition_by', partition_by, "expected the key column name(s)") }}
    {%- endif -%}
    {%- set ordering = window_tvf._order_by(order_by, 'deduplicate', 'order_by', 'ranked_input', reverse=(keep == 'last'),
        relation=relation, columns=columns) -%}
    {{ return(window_tvf._first_rows('select * from ' ~ relation, 1, ordering,
        partition, none, 'deduplicate', reverse_tie_break=(keep == 'last'), columns=window_tvf._known_column_names(relation))) }}
{% endmacro %}
