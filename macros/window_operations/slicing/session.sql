{#-
    Session windows by group: one sort numbers the sessions of each partition (_numbered_sessions), then one GROUP
    BY per session and group. A session's bounds belong to the whole session: when group_by has keys beyond the
    session's partition keys, several groups share one session, so the bounds are taken over the session's groups
    (a window over the grouped rows, which are far fewer than the input rows).
-#}
{% macro _session_aggregate_sql(relation, spec, keys, measures, axis) %}
    {%- set gap = window_tvf._positive_duration(spec.gap, 'window_aggregate', 'gap') -%}
    {%- set partition_keys = window_tvf._column_names(spec.get('partition_by'), 'window_aggregate', 'partition_by') -%}
    {%- set extra_keys = keys | reject('in', partition_keys) | list -%}
    {%- set by_session = 'partition by ' ~ (partition_keys + ['window_tvf__session']) | join(', ') -%}
select
    {{ window_tvf._window_columns(axis, 'window_tvf__start', 'window_tvf__end', 'window_tvf__like') }},
    {%- for key in keys %}
    {{ key }},
    {%- endfor %}
    {%- for name, call in measures.items() %}
    {{ name }}{{ ',' if not loop.last }}
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
            min({{ spec.timecol }}) as window_tvf__like,
            {%- endif %}
            {%- for name, call in measures.items() %}
            {{ window_tvf._row_aggregate(call) }} as {{ name }}{{ ',' if not loop.last }}
            {%- endfor %}
        from (
            {{ window_tvf._numbered_sessions(relation, spec.timecol, gap, 'source_rows.*', partition_keys, axis) }}
        ) as numbered
        group by {% for key in partition_keys %}{{ key }}, {% endfor %}window_tvf__session
            {%- for key in extra_keys %}, {{ key }}{% endfor %}
    ) as grouped
) as sessions
{%- endmacro %}
