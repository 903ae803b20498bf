{#
    Flink's temporal join, FOR SYSTEM_TIME AS OF: each left row joins the version of the right side valid at its
    time, i.e. per key the latest right row with right_time <= left_time. join_type 'left' keeps left rows with
    no version (right columns NULL); 'inner' drops them. NULL keys never match; a left row with a NULL time has no
    version; right rows with a NULL time are never valid.

    Built as one sort, not a join: both sides go into one stream ordered by key and time (a version at the same
    instant sorts before the left row), and each left row takes the last version seen, so the cost grows with the
    rows of both sides rather than with left rows times versions per key.

    Output: every left column, then the right side's non-key columns, each named right_prefix + name (default
    no prefix; a name that would repeat a left column is a compile error that suggests a prefix).
#}
{% macro asof_join(left, right, left_time, right_time, on, join_type='left', right_prefix='') %}
    {{ return(adapter.dispatch('asof_join', 'window_tvf')(left, right, left_time, right_time, on, join_type, right_prefix)) }}
{% endmacro %}

{% macro default__asof_join(left, right, left_time, right_time, on, join_type='left', right_prefix='') %}
    {%- set left = window_tvf._relation(left, 'asof_join') -%}
    {%- set left_time = window_tvf._column_name(left_time, 'asof_join', 'left_time') -%}
    {%- set right_time = window_tvf._column_name(right_time, 'asof_join', 'right_time') -%}
    {%- set plan = window_tvf._temporal_join_plan(left, right, on, join_type, right_prefix, 'asof_join', left_time, right_time) -%}
    {%- if not execute -%}{{ return('select * from ' ~ left) }}{%- endif -%}
    {%- set left_keys, right_keys, key_order = [], [], [] -%}
    {%- for left_key, right_key in plan.key_pairs -%}
        {%- do left_keys.append('left_rows.' ~ left_key) -%}
        {%- do right_keys.append('right_rows.' ~ right_key) -%}
        {%- do key_order.append('join_key_' ~ loop.index) -%}
    {%- endfor -%}
    {%- set unmatchable = ['left_rows.' ~ left_time ~ ' is null'] -%}
    {%- for key in left_keys -%}{%- do unmatchable.append(key ~ ' is null') -%}{%- endfor -%}
select
    {{ (['versioned.left_row.*'] + plan.right_columns) | join(',\n    ') }}
from (
    select
        left_row,
        -- the last version at or before this row's time; none for a NULL time or key
        case when not left_unmatchable then last_value(right_row, true) over (
            partition by {{ key_order | join(', ') }}
            order by stream_time, stream_side, right_row
            rows between unbounded preceding and current row
        ) end as right_row
    from (
        select
            struct(left_rows.*) as left_row,
            null as right_row,
            {% for key in left_keys -%}{{ key }} as join_key_{{ loop.index }},
            {% endfor -%}
            left_rows.{{ left_time }} as stream_time,
            1 as stream_side,
            {{ unmatchable | join(' or ') }} as left_unmatchable
        from {{ left }} as left_rows
        union all
        select
            null as left_row,
            struct(right_rows.*) as right_row,
            {% for key in right_keys -%}{{ key }} as join_key_{{ loop.index }},
            {% endfor -%}
            right_rows.{{ right_time }} as stream_time,
            0 as stream_side,
            false as left_unmatchable
        from {{ plan.right }} as right_rows
        where right_rows.{{ right_time }} is not null
    ) as stream
) as versioned
where versioned.left_row is not null
{%- if join_type == 'inner' %}
    and versioned.right_row is not null
{%- endif %}
{%- endmacro %}


{#
    The processing-time form: each left row joins the newest version of its key (the right row with the greatest
    right_time; ties broken by the whole row), whatever the left row's time. Same join types and output as asof_join.
#}
{% macro latest_version_join(left, right, right_time, on, join_type='left', right_prefix='') %}
    {{ return(adapter.dispatch('latest_version_join', 'window_tvf')(left, right, right_time, on, join_type, right_prefix)) }}
{% endmacro %}

{% macro default__latest_version_join(left, right, right_time, on, join_type='left', right_prefix='') %}
    {%- set left = window_tvf._relation(left, 'latest_version_join') -%}
    {%- set right_time = window_tvf._column_name(right_time, 'latest_version_join', 'right_time') -%}
    {%- set plan = window_tvf._temporal_join_plan(left, right, on, join_type, right_prefix, 'latest_version_join', none, right_time) -%}
    {%- if not execute -%}{{ return('select * from ' ~ left) }}{%- endif -%}
    {%- set right_keys, condition = [], [] -%}
    {%- for left_key, right_key in plan.key_pairs -%}
        {%- do right_keys.append(right_key) -%}
        {%- do condition.append('left_rows.' ~ left_key ~ ' = latest.' ~ right_key) -%}
    {%- endfor -%}
select
    {{ (['left_rows.*'] + plan.right_columns | map('replace', 'versioned.right_row.', 'latest.') | list) | join(',\n    ') }}
from {{ left }} as left_rows
{{ 'inner' if join_type == 'inner' else 'left outer' }} join (
    {{ window_tvf.deduplicate(plan.right, right_keys, [right_time ~ ' asc nulls first'], keep='last') }}
) as latest
    on {{ condition | join(' and ') }}
{%- endmacro %}


{#-
    Checks shared by the temporal joins; returns the right relation, key pairs and the right side's output columns.
    Every column argument is checked against its side's columns when they are known (ref()/source()), and the
    columns compared across the sides (each key pair; asof_join's two times) must be of one kind of type.
-#}
{% macro _temporal_join_plan(left, right, on, join_type, right_prefix, macro_name, left_time, right_time) %}
    {%- if join_type not in ('left', 'inner') -%}
        {{ window_tvf._argument_error(macro_name, 'join_type', join_type, "expected 'left' (keep left rows without a version) or 'inner'") }}
    {%- endif -%}
    {%- if right_prefix is not string or not modules.re.match('^([A-Za-z_][A-Za-z0-9_]*)?$', right_prefix) -%}
        {{ window_tvf._argument_error(macro_name, 'right_prefix', right_prefix, "expected '' or an identifier prefix such as 'rate_'") }}
    {%- endif -%}
    {%- set keys = window_tvf._join_keys(on, macro_name) -%}
    {%- set right = window_tvf._relation(right, macro_name) -%}
    {%- set right_columns = window_tvf._required_columns(right, macro_name) -%}
    {%- set left_columns = window_tvf._known_columns(left) -%}
    {%- set pairs = [['on', keys]] + ([['left_time', [[left_time, right_time]]]] if left_time is not none else []) -%}
    {%- for argument, names in pairs -%}
        {%- for left_name, right_name in names -%}
            {%- do window_tvf._compared_columns(left, left_columns, left_name, right, right_columns, right_name, macro_name, argument) -%}
        {%- endfor -%}
    {%- endfor -%}
    {%- do window_tvf._existing_columns([right_time], right_columns, right, macro_name, 'right_time') -%}
    {%- set right_keys = [] -%}
    {%- for left_key, right_key in keys -%}{%- do right_keys.append(window_tvf._unquoted(right_key) | lower) -%}{%- endfor -%}
    {%- set projection = [] -%}
    {%- for column in right_columns if column not in right_keys -%}
        {%- if (right_prefix ~ column) | lower in left_columns -%}
            {{ window_tvf._argument_error(macro_name, 'right_prefix', right_prefix,
                "the right column " ~ column ~ " would be named " ~ right_prefix ~ column ~ ", which the left side already has; "
                ~ "pass a right_prefix such as 'right_'") }}
        {%- endif -%}
        {%- do projection.append('versioned.right_row.`' ~ column ~ '` as `' ~ right_prefix ~ column ~ '`') -%}
    {%- endfor -%}
    {{ return({'right': right, 'key_pairs': keys, 'right_columns': projection}) }}
{% endmacro %}

{#-
    A left column compared with a right column: each must exist on its side (when known), and when both types are
    known they must be of one kind (numbers, strings, times, or one type); otherwise Spark compares them after an
    implicit cast (a timestamp with a string becomes text in asof_join's union, 1 equals '01' in a join), so what
    matches would depend on how values are written.
-#}
{% macro _compared_columns(left, left_columns, left_name, right, right_columns, right_name, macro_name, argument) %}
    {%- set left_key = window_tvf._existing_columns([left_name], left_columns, left, macro_name, argument)[0] -%}
    {%- set right_argument = 'right_time' if argument == 'left_time' else argument -%}
    {%- set right_key = window_tvf._existing_columns([right_name], right_columns, right, macro_name, right_argument)[0] -%}
    {%- if left_key in left_columns and right_key in right_columns -%}
        {%- set left_type, right_type = left_columns[left_key], right_columns[right_key] -%}
        {%- if window_tvf._type_kind(left_type) != window_tvf._type_kind(right_type) -%}
            {{ window_tvf._argument_error(macro_name, right_argument, right_name,
                "the left column " ~ left_key ~ " is " ~ left_type ~ " and the right column " ~ right_key ~ " is " ~ right_type
                ~ "; Spark would compare them only after an implicit cast, so cast one side to the other's type first") }}
        {%- endif -%}
    {%- endif -%}
{% endmacro %}

{#- The kind of a Spark type for comparisons across the join: number, string, time, or the type itself. -#}
{% macro _type_kind(data_type) %}
    {%- if data_type in ('tinyint', 'smallint', 'int', 'bigint', 'float', 'double') or data_type.startswith('decimal') -%}
        {{ return('number') }}
    {%- elif data_type == 'string' or modules.re.match('^(var)?char\(', data_type) -%}
        {{ return('string') }}
    {%- elif data_type in ('date', 'timestamp', 'timestamp_ntz') -%}
        {{ return('time') }}
    {%- endif -%}
    {{ return(data_type) }}
{% endmacro %}
