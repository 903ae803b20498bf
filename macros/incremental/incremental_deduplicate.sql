{#-
    Deduplication with a state time-to-live, as Flink's `table.exec.state.ttl` gives a keep-first-row
    deduplication: the first row of a key is kept, later rows of that key are dropped while the key's state lives,
    and once the key has not been written for `ttl` its state is gone and the next row counts as the first again.

    Flink's semantics, followed exactly (flink-table-runtime StateConfigUtil and DeduplicateFunctionHelper; TtlUtils):
    - the clock is the row's arrival (processing) time: `time_column`;
    - the state is written only when a row is kept (UpdateType.OnCreateAndWrite): a dropped duplicate does not
      extend the key's life;
    - a key kept at time s has expired for a row at time t when s + ttl <= t (NeverReturnExpired): a row exactly
      `ttl` after the kept one is kept, one 1 microsecond earlier is dropped.

    For an incremental model (insert_overwrite, partitioned by `time_column`) that processes the rows that arrived
    in [interval_start, interval_end) per run. The state is the model's own kept rows: a run reads only the
    partitions of the `ttl` before interval_start, and only the keys that arrived in the interval. Without an
    interval, or on the first run or a full refresh, every row before interval_end is deduplicated in time order,
    which gives the same rows as running the intervals one after another.
-#}
{% macro incremental_deduplicate(relation, partition_by, time_column, ttl, interval_start=none, interval_end=none,
        order_by=none) %}
    {{ return(adapter.dispatch('incremental_deduplicate', 'window_tvf')(
        relation, partition_by, time_column, ttl, interval_start, interval_end, order_by)) }}
{% endmacro %}

{% macro default__incremental_deduplicate(relation, partition_by, time_column, ttl, interval_start=none,
        interval_end=none, order_by=none) %}
    {%- set name = 'incremental_deduplicate' -%}
    {%- set relation = window_tvf._relation(relation, name) -%}
    {%- set keys = window_tvf._column_names(partition_by, name, 'partition_by') -%}
    {%- if not keys -%}
        {{ window_tvf._argument_error(name, 'partition_by', partition_by, "expected the key column name(s)") }}
    {%- endif -%}
    {%- do window_tvf._column_name(time_column, name, 'time_column') -%}
    {%- set ttl_us = window_tvf._positive_duration(ttl, name, 'ttl') -%}
    {%- set ordering = window_tvf._order_by(order_by, name, 'order_by', 'window_tvf__arrived') if order_by is not none else [] -%}
    {%- set start = window_tvf._utc_instant(interval_start, name, 'interval_start') if interval_start else none -%}
    {%- set end = window_tvf._utc_instant(interval_end, name, 'interval_end') if interval_end else none -%}
    {%- set incremental = start is not none and is_incremental() -%}
    {%- set on_keys = [] -%}
    {%- for key in keys -%}{%- do on_keys.append('{left}.' ~ key ~ ' <=> {right}.' ~ key) -%}{%- endfor -%}
    {%- call window_tvf._self_contained('incremental_deduplicate') %}
    with window_tvf__arrived as (
        select *
        from {{ relation }}
        where true
            {%- if incremental %}
            and {{ time_column }} >= {{ window_tvf._instant_literal(start) }}
            {%- endif %}
            {%- if end %}
            and {{ time_column }} < {{ window_tvf._instant_literal(end) }}
            {%- endif %}
    ),

    window_tvf__live_state as (
        {{ window_tvf._ttl_live_state(keys, time_column, on_keys | join(' and '),
            start - modules.datetime.timedelta(microseconds=ttl_us) if incremental else none, start) }}
    ),

    window_tvf__sightings as (
        {{ window_tvf._ttl_sightings(keys, time_column, ordering) }}
    ),

    window_tvf__kept_arrivals as (
        select
            aggregate(
                window_tvf__sightings.arrivals,
                named_struct('kept_at', window_tvf__live_state.last_kept, 'kept', slice(window_tvf__sightings.arrivals, 1, 0)),
                (state, arrival) -> case
                    when state.kept_at is null
                        or arrival.seen_at >= {{ window_tvf._plus_micros('state.kept_at', ttl_us) }}
                        then named_struct('kept_at', arrival.seen_at, 'kept', concat(state.kept, array(arrival)))
                    else state
                end
            ).kept as kept
        from window_tvf__sightings
        left join window_tvf__live_state
            on {{ on_keys | join(' and ') | replace('{left}', 'window_tvf__sightings') | replace('{right}', 'window_tvf__live_state') }}
    )

    select kept_arrival.arrival.*
    from window_tvf__kept_arrivals
    lateral view explode(kept) exploded as kept_arrival
    {%- endcall %}
{% endmacro %}

{#-
    When each key that arrived in the interval was last kept, if its state still lives at the interval's start:
    read from the model's own partitions after `expired_before` (none: no earlier state, a full run).
-#}
{% macro _ttl_live_state(keys, time_column, on_keys, expired_before, start) %}
    select
        {%- for key in keys %}
        kept.{{ key }},
        {%- endfor %}
        max(kept.{{ time_column }}) as last_kept
    from {{ this if expired_before else 'window_tvf__arrived' }} as kept
    {%- if expired_before %}
    where kept.{{ time_column }} > {{ window_tvf._instant_literal(expired_before) }}
        and kept.{{ time_column }} < {{ window_tvf._instant_literal(start) }}
        and exists (select 1 from window_tvf__arrived where {{ on_keys | replace('{left}', 'window_tvf__arrived') | replace('{right}', 'kept') }})
    {%- else %}
    where false
    {%- endif %}
    group by {% for key in keys %}kept.{{ key }}{{ ', ' if not loop.last }}{% endfor %}
{% endmacro %}

{#-
    Each key's rows as one array in arrival order: time_column, then `ordering`, then the whole row, so ties resolve
    the same way on every run.
-#}
{% macro _ttl_sightings(keys, time_column, ordering) %}
    select
        {%- for key in keys %}
        {{ key }},
        {%- endfor %}
        array_sort(
            collect_list(struct(arrival_position, {{ time_column }} as seen_at, arrival)),
            (left_arrival, right_arrival) -> case
                when left_arrival.arrival_position < right_arrival.arrival_position then -1
                when left_arrival.arrival_position > right_arrival.arrival_position then 1
                else 0
            end
        ) as arrivals
    from (
        select
            window_tvf__arrived.*,
            struct(window_tvf__arrived.*) as arrival,
            row_number() over (
                partition by {% for key in keys %}window_tvf__arrived.{{ key }}{{ ', ' if not loop.last }}{% endfor %}
                order by window_tvf__arrived.{{ time_column }}, {{ (ordering + ['']) | join(', ') }}struct(window_tvf__arrived.*)
            ) as arrival_position
        from window_tvf__arrived
    ) as positioned
    group by {% for key in keys %}{{ key }}{{ ', ' if not loop.last }}{% endfor %}
{% endmacro %}
