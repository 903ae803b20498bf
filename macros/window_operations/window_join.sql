{#
    Flink's window join: rows of two windowed relations whose windows are equal (same window_start and
    window_end) and whose `on` keys are equal. Both sides must use the same window (same TVF and durations; the
    time columns may differ).

    join_type: 'inner', 'left', 'right', 'full' (outer), 'semi' (Flink's IN / EXISTS) or 'anti' (NOT EXISTS;
               a left row whose key is NULL is kept, as NOT EXISTS does).
    on:        column names present on both sides, or [left column, right column] pairs.

    Output naming rule (no collisions, FLINK-18679): semi and anti joins return the left side's windowed rows
    unchanged. The other joins return window_start, window_end, window_time and each join key once (named as on
    the left; for outer joins taken from whichever side has the row), then every other left column as
    `<left_prefix><name>` and every other right column as `<right_prefix><name>`. Names never depend on what
    columns the other side has, so adding a column to one input never renames another.
#}
{% macro window_join(left, left_window, right, right_window, on, join_type='inner', left_prefix='left_', right_prefix='right_') %}
    {%- set scope = window_tvf._batch_scope('window_join', [[left, left_window], [right, right_window]]) -%}
    {{ return(window_tvf._batch_windows(scope, adapter.dispatch('window_join', 'window_tvf')(
        scope.relations[0], left_window, scope.relations[1], right_window, on, join_type, left_prefix, right_prefix),
        window_tvf._batch_row_columns(left) if join_type in ('semi', 'anti') else [])) }}
{% endmacro %}

{% macro default__window_join(left, left_window, right, right_window, on, join_type='inner', left_prefix='left_', right_prefix='right_') %}
    {%- set join_types = {'inner': 'inner join', 'left': 'left outer join', 'right': 'right outer join',
        'full': 'full outer join', 'semi': 'left semi join', 'anti': 'left anti join'} -%}
    {%- if join_type not in join_types -%}
        {{ window_tvf._argument_error('window_join', 'join_type', join_type, "expected one of " ~ join_types.keys() | join(', ')) }}
    {%- endif -%}
    {%- set left_spec = window_tvf._window_spec(left_window, 'window_join', 'left_window') -%}
    {%- set right_spec = window_tvf._window_spec(right_window, 'window_join', 'right_window') -%}
    {%- if window_tvf._window_identity(left_spec, 'window_join') != window_tvf._window_identity(right_spec, 'window_join') -%}
        {{ window_tvf._argument_error('window_join', 'right_window', right_window,
            "both sides of a window join must use the same window; the left side uses " ~ (left_window | tojson)
            ~ " (only the time column may differ)") }}
    {%- endif -%}
    {%- set key_pairs = window_tvf._join_keys(on, 'window_join') -%}
    {%- for prefix_argument, prefix in [('left_prefix', left_prefix), ('right_prefix', right_prefix)] -%}
        {%- if prefix is not string or not modules.re.match('^[A-Za-z_][A-Za-z0-9_]*$', prefix) -%}
            {{ window_tvf._argument_error('window_join', prefix_argument, prefix, "expected an identifier prefix such as 'left_'") }}
        {%- endif -%}
    {%- endfor -%}
    {%- set condition = ['left_rows.window_start = right_rows.window_start', 'left_rows.window_end = right_rows.window_end'] -%}
    {%- for left_key, right_key in key_pairs -%}
        {%- do condition.append('left_rows.' ~ left_key ~ ' = right_rows.' ~ right_key) -%}
    {%- endfor -%}
    {%- set right_rows = window_tvf.apply_window(right, right_spec) -%}
    {%- if join_type in ('semi', 'anti') -%}
        {%- set projection = ['left_rows.*'] -%}
        {#- Only whether a match exists counts: the right side's distinct windows and keys (fewer rows to build). -#}
        {%- set right_columns = ['window_start', 'window_end'] -%}
        {%- for left_key, right_key in key_pairs -%}{%- do right_columns.append(right_key) -%}{%- endfor -%}
        {%- set right_rows = 'select distinct ' ~ right_columns | join(', ') ~ ' from (' ~ right_rows ~ ') as right_windowed' -%}
    {%- else -%}
        {%- set projection = window_tvf._window_join_projection(left, right, key_pairs, join_type, left_prefix, right_prefix) -%}
    {%- endif -%}
select
    {{ projection | join(',\n    ') }}
from ({{ window_tvf.apply_window(left, left_spec) }}) as left_rows
{{ join_types[join_type] }} ({{ right_rows }}) as right_rows
    on {{ condition | join('\n    and ') }}
{%- endmacro %}



{#- The select list of an inner or outer window join, following the naming rule above. -#}
{% macro _window_join_projection(left, right, key_pairs, join_type, left_prefix, right_prefix) %}
    {%- if not execute -%}{{ return(['left_rows.*']) }}{%- endif -%}
    {%- set sides = {'left': window_tvf._known_columns(left), 'right': window_tvf._known_columns(right)} -%}
    {%- for side, relation in [('left', left), ('right', right)] if not sides[side] -%}
        {{ window_tvf._argument_error('window_join', side, relation | string,
            "an inner or outer window join names every output column, so each side must be a ref()/source() relation "
            ~ "whose columns dbt can read (a CTE name only works with join_type 'semi' or 'anti')") }}
    {%- endfor -%}
    {%- set shared = {'inner': '{l}', 'left': '{l}', 'right': '{r}', 'full': 'coalesce({l}, {r})'}[join_type] -%}
    {%- set projection = [] -%}
    {%- for column in ['window_start', 'window_end', 'window_time'] -%}
        {%- do projection.append(shared.replace('{l}', 'left_rows.' ~ column).replace('{r}', 'right_rows.' ~ column) ~ ' as ' ~ column) -%}
    {%- endfor -%}
    {%- set left_keys, right_keys = [], [] -%}
    {%- for left_key, right_key in key_pairs -%}
        {%- do left_keys.append(window_tvf._unquoted(left_key) | lower) -%}
        {%- do right_keys.append(window_tvf._unquoted(right_key) | lower) -%}
        {%- do projection.append(shared.replace('{l}', 'left_rows.' ~ left_key).replace('{r}', 'right_rows.' ~ right_key) ~ ' as ' ~ left_key) -%}
    {%- endfor -%}
    {%- for side, keys, prefix in [('left', left_keys, left_prefix), ('right', right_keys, right_prefix)] -%}
        {%- for column in sides[side] if column not in keys -%}
            {%- do projection.append(side ~ '_rows.`' ~ column ~ '` as `' ~ prefix ~ column ~ '`') -%}
        {%- endfor -%}
    {%- endfor -%}
    {{ return(projection) }}
{% endmacro %}
