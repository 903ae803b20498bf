{#
    A batch-grain partition column computed from a window's time, as the window macros add it in a microbatch
    batch: `<the UTC hour, date, month or year of time_column> as <column>`. For a model that aggregates a window
    TVF's rows itself: in a batch the TVF's rows carry window_hour, but the model's own select decides its columns,
    and outside a batch (a table) the rows have none. Selecting this instead builds the same model text both ways:

        with hopped as ({{ window_tvf.hop(ref('order_events'), 'event_time', '15 minutes', '1 hour') }})
        select window_start, window_end, window_time, {{ window_tvf.window_partition_column('window_hour') }},
            item_id, count(*) as orders
        from hopped
        group by all
#}
{% macro window_partition_column(column, time_column='window_time') %}
    {%- set columns = window_tvf._batch_partition_columns() -%}
    {%- if column is not string or column not in columns -%}
        {{ window_tvf._argument_error('window_partition_column', 'column', column, "expected one of "
            ~ (columns.keys() | join(', ')) ~ ": the UTC hour, date, month or year of the window's time, the grains "
            ~ "of dbt's batches") }}
    {%- endif -%}
    {%- set time_column = window_tvf._column_name(time_column, 'window_partition_column', 'time_column') -%}
    {{ return(window_tvf._batch_partition_value(column, time_column) ~ ' as ' ~ column) }}
{% endmacro %}
