{#
    Flink's window deduplication: per window and key, keep the first (earliest) or last (latest) row by the time
    column (ROW_NUMBER() ... ORDER BY rowtime ASC/DESC = 1). Rows at the same time are ordered by all their
    columns, so the choice among them is the same on every run. Returns the windowed rows.
    `timecol` defaults to the window spec's time column; name it when `relation` is already windowed (window=none).
#}
{% macro window_deduplicate(relation, window, partition_by=none, keep='first', timecol=none) %}
    {%- set scope = window_tvf._batch_scope('window_deduplicate', [[relation, window]]) -%}
    {{ return(window_tvf._batch_windows(scope, adapter.dispatch('window_deduplicate', 'window_tvf')(
        scope.relations[0], window, partition_by, keep, timecol), window_tvf._batch_row_columns(relation))) }}
{% endmacro %}

{% macro default__window_deduplicate(relation, window, partition_by=none, keep='first', timecol=none) %}
    {%- if keep not in ('first', 'last') -%}
        {{ window_tvf._argument_error('window_deduplicate', 'keep', keep, "expected 'first' or 'last'") }}
    {%- endif -%}
    {%- if timecol is none and window is mapping -%}
        {%- set timecol = window.get('timecol') -%}
    {%- endif -%}
    {%- if timecol is none -%}
        {{ window_tvf._argument_error('window_deduplicate', 'timecol', timecol,
            "name the time column when the relation is already windowed (window=none)") }}
    {%- endif -%}
    {%- set timecol = window_tvf._column_name(timecol, 'window_deduplicate', 'timecol') -%}
    {%- set ordering = window_tvf._order_by([timecol], 'window_deduplicate', 'timecol', 'ranked_input', reverse=(keep == 'last')) -%}
    {{ return(window_tvf._first_rows(
        window_tvf._windowed(relation, window, 'window_deduplicate'), 1, ordering,
        window_tvf._window_partition(partition_by, 'window_deduplicate'), none, 'window_deduplicate',
        reverse_tie_break=(keep == 'last'), columns=window_tvf._windowed_columns(relation, window))) }}
{% endmacro %}
