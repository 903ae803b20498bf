{#
    Process-style windows (Flink's ProcessWindowFunction): one row per window (and per `partition_by` group) with
    all of its rows as an array, for logic that needs every element. Output: window_start, window_end,
    window_time, the partition keys, `elements` (array of structs: each element is the windowed row, in time
    order, ties ordered by the whole row) and `element_count`.
    `timecol` defaults to the window spec's time column; name it when `relation` is already windowed (window=none).
#}
{% macro window_collect(relation, window, partition_by=none, timecol=none) %}
    {%- set scope = window_tvf._batch_scope('window_collect', [[relation, window]]) -%}
    {{ return(window_tvf._batch_windows(scope, adapter.dispatch('window_collect', 'window_tvf')(
        scope.relations[0], window, partition_by, timecol), window_tvf._column_names(partition_by, 'window_collect', 'partition_by'))) }}
{% endmacro %}

{% macro default__window_collect(relation, window, partition_by=none, timecol=none) %}
    {%- set keys = window_tvf._column_names(partition_by, 'window_collect', 'partition_by') -%}
    {%- if timecol is none and window is mapping -%}
        {%- set timecol = window.get('timecol') -%}
    {%- endif -%}
    {%- set timecol = window_tvf._column_name(timecol, 'window_collect', 'timecol') -%}
select
    {{ window_tvf._window_and_keys(keys) }}
    -- sorting (time, row) pairs orders the elements by time, and equal times by the whole row
    transform(
        array_sort(collect_list(struct(windowed_rows.{{ timecol }} as element_time, struct(windowed_rows.*) as element))),
        timed_element -> timed_element.element
    ) as elements,
    count(*) as element_count
from ({{ window_tvf._windowed(relation, window, 'window_collect') }}) as windowed_rows
group by window_start, window_end, window_time{{ ', ' ~ keys | join(', ') if keys }}
{%- endmacro %}
