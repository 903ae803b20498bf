{#-
    For the sliced path's equality tests (tests/window_operations/assert_sliced_*): each case's window_aggregate on
    the row path ('rows') and on both sliced plans ('many', and 'few' where its SQL differs from 'many'), compared
    as multisets, each plan computed once.
    `cases`: a list of {'id': number, 'window': window spec, 'group_by': column or none, 'aggregates': {name: sql}}.
    `columns`: window_case, window_start, window_end, window_time, the group_by column, then every aggregate name of
    any case (an aggregate a case lacks is null, and so is the key of a case without group_by).
    One row per distinct row over `columns`, with rows_copies, many_copies, few_copies and plans_differ: a sliced
    plan holds the row a different number of times than the row path ('few' compared on its own cases only).
-#}
{% macro _sliced_plans_compared(relation, cases, columns) %}
    {%- set results, few_cases = {'rows': [], 'many': [], 'few': []}, [] %}
    {%- for case in cases %}
        {%- set plans = {} %}
        {%- for plan, strategy, keys in [('rows', 'rows', none), ('many', 'slices', 'many'), ('few', 'slices', 'few')] %}
            {%- do plans.update({plan: window_tvf.window_aggregate(relation, case['window'], case['group_by'],
                case['aggregates'], strategy=strategy, keys=keys)}) %}
        {%- endfor %}
        {%- if plans['few'] == plans['many'] %}{% do plans.pop('few') %}{% else %}{% do few_cases.append(case['id']) %}{% endif %}
        {%- for plan, sql in plans.items() %}
            {%- do results[plan].append(window_tvf._sliced_plan_rows(case, sql, columns)) %}
        {%- endfor %}
    {%- endfor %}
    {%- set rowsets = {} %}
    {%- for plan, selects in results.items() if selects %}
        {%- do rowsets.update({plan: '(' ~ (selects | join('\n    union all\n')) ~ ') as ' ~ plan ~ '_results'}) %}
    {%- endfor %}
    select
        copies.*,
        many_copies != rows_copies
        {%- if few_cases %}
            or (window_case in ({{ few_cases | join(', ') }}) and few_copies != rows_copies)
        {%- endif %} as plans_differ
    from (
        {{ window_tvf._rowset_copies(rowsets, columns) }}
    ) as copies
{% endmacro %}

{#- One case's rows of one plan, in `columns` (see _sliced_plans_compared). -#}
{% macro _sliced_plan_rows(case, sql, columns) %}
    select
        {{ case['id'] }} as {{ columns[0] }},
        {{ columns[1:4] | join(', ') }},
        {{ columns[4] if case['group_by'] else 'null' }} as {{ columns[4] }},
        {%- for name in columns[5:] %}
        {{ name if name in case['aggregates'] else 'null' }} as {{ name }}{{ ',' if not loop.last }}
        {%- endfor %}
    from ({{ sql }}) as aggregated
{% endmacro %}
