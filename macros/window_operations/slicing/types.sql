{#
    The row path's result types, and values, on the sliced paths. The row path calls each aggregate itself (Spark's
    types: sum(x) of a decimal(p, s) is decimal(min(38, p + 10), s), avg(x) decimal(min(38, p + 4), s + 4)). A merge
    widens a decimal sum: a sum of slice sums is decimal(p + 20, s), a running sum (cumulate) the same, and a + of
    lead() values (the hop's lead path) one digit more per value. The type would then follow the plan (the window
    kind, keys='few' or 'many', the estimate read when the model compiles), and a table built by one plan would
    change type when the data changes the plan. So every merged sum is brought back to the type of sum(x) over the
    input, and every avg is its merged sum divided by its merged count as Spark's avg divides (_exact_average):
      - when the input's columns are known (a ref() or source(), a table dbt knows): read when the model compiles
        (one `describe query` of the aggregates over the relation, kept in the model's context), then a cast;
      - for a CTE of the model: the same, from a `describe query` of the model's WITH clause up to it, when every
        relation it reads exists (macros/internal/cte_sources.sql, _cte_types);
      - otherwise (a temporary view's name, a CTE that cannot be described): an avg takes the row path (its exact
        quotient needs the types); each merged sum carries a hidden partial `if(false, sum(x), null)`, a NULL of
        the row path's type that merges with min (which keeps its type), and the final value is
        lag(template, 1, merged sum) over a window whose partitions are single output rows: Spark casts a lag's
        default to the type of its value, so that is the merged sum, cast (_value_as_type_of). SQL has no cast to
        the type of an expression; this is one, at the cost of a sort of the output rows by window (on 2 M rows and
        3.4 M windows, 1.2 to 1.8 s on top of 4.7 s; a JSON round trip through from_json, whose schema can be
        typeof() of the template, cost 5.8 s). A relation or a described CTE costs nothing.
    A value that fits the row path's type is the row path's value. One that does not (the row path's sum
    overflows) is NULL, as on the row path (dbt-spark runs Spark in non-ANSI mode), and an error under
    spark.sql.ansi.enabled, as there too. Not handled here: a slice whose own partial sum overflows (a sum typed
    decimal(38, s), near 10^(38 - s)) is NULL, and the merge leaves it out (README, Types).
#}

{#-
    `plan` (merge_plan.sql) with the final value of every merged sum in the row path's type, and every avg as Spark's
    avg computes it (_exact_average); none when an avg cannot be (its input's types unknown, or a decimal too wide),
    which leaves the aggregation to the row path. Measures whose merge keeps the type (count, min, max, booleans,
    sketches, distinct counts) are left as they are.
-#}
{% macro _typed_plan(plan, relation) %}
    {%- set sums = plan | selectattr('sum_of', 'defined') | list -%}
    {#- dbt's parse phase renders the model without reading the warehouse: nothing to type, nothing to refuse. -#}
    {%- if not sums or not execute -%}{{ return(plan) }}{%- endif -%}
    {%- set calls = [] -%}
    {%- for measure in sums -%}
        {%- do calls.append('sum(' ~ measure.sum_of ~ ')') -%}
        {%- if measure.avg_of is defined -%}{%- do calls.append('avg(' ~ measure.avg_of ~ ')') -%}{%- endif -%}
    {%- endfor -%}
    {%- set types = window_tvf._row_types(relation, calls | unique | list) -%}
    {%- set typed, templates, template_of = [], [], {} -%}
    {%- for measure in plan -%}
        {%- if measure.sum_of is not defined -%}
            {%- do typed.append(measure) -%}
        {%- elif types is not none -%}
            {%- set sum_type = types['sum(' ~ measure.sum_of ~ ')'] -%}
            {%- if measure.avg_of is defined -%}
                {%- set final = window_tvf._exact_average(measure.sum_column, measure.count_column, sum_type,
                    types['avg(' ~ measure.avg_of ~ ')']) -%}
                {%- if final is none -%}{{ return(none) }}{%- endif -%}
            {%- else -%}
                {%- set final = 'cast(' ~ measure.sum_column ~ ' as ' ~ sum_type ~ ')' -%}
            {%- endif -%}
            {%- do typed.append(dict(measure, sum_type=sum_type, final=final)) -%}
        {%- elif measure.avg_of is defined -%}
            {{ return(none) }}
        {%- else -%}
            {%- if measure.sum_of not in template_of -%}
                {%- do template_of.update({measure.sum_of: 'window_tvf__sum_type_' ~ (templates | length + 1)}) -%}
                {%- do templates.append({'name': none, 'hidden': true, 'template': true, 'partials': [
                    (template_of[measure.sum_of], 'if(false, sum(' ~ measure.sum_of ~ '), null)', 'min')], 'final': none}) -%}
            {%- endif -%}
            {%- set template = template_of[measure.sum_of] -%}
            {%- do typed.append(dict(measure, sum_template=template,
                final=measure.sum_final | format(window_tvf._value_as_type_of(measure.sum_column, template)))) -%}
        {%- endif -%}
    {%- endfor -%}
    {{ return(typed + templates) }}
{% endmacro %}

{#-
    avg(x) from its merged sum and count, as Spark's avg gives it: its type (avg_type) and its value, the sum (typed
    sum_type) divided by the count and rounded half up once, at avg_type's scale S. Spark's avg divides exactly so
    (the quotient to 39 places, then to S); a division here rounds at the scale its operand types give, so the
    operands are cast to make that scale S: with the count a decimal(20,0), a dividend decimal(34, s) gives s + 4,
    which is S for s >= 2; for s < 2 (S = 4 or 5 < 6, below any division's scale) the count is multiplied by
    10^(6 - S), the quotient rounded at 6, and multiplied back. None when the sum does not fit that dividend
    (sum(x) wider than decimal(34, s), or decimal(32 + s, s) for s < 2: an input wider than decimal(24, s) or
    decimal(22 + s, s)) or S caps at 38: the row path then. Other types (doubles for numbers, intervals) divide as
    Spark's avg does, then take its type.
-#}
{% macro _exact_average(sum_column, count_column, sum_type, avg_type) %}
    {%- set quotient = 'try_divide(%s, %s)' -%}
    {%- set sum_decimal = modules.re.match('^decimal\((\d+),(\d+)\)$', sum_type) -%}
    {%- set avg_decimal = modules.re.match('^decimal\((\d+),(\d+)\)$', avg_type) -%}
    {%- if not sum_decimal or not avg_decimal -%}
        {{ return('cast(' ~ quotient | format('cast(' ~ sum_column ~ ' as ' ~ sum_type ~ ')', count_column)
            ~ ' as ' ~ avg_type ~ ')') }}
    {%- endif -%}
    {%- set precision, scale = sum_decimal.group(1) | int, sum_decimal.group(2) | int -%}
    {%- set average_scale = avg_decimal.group(2) | int -%}
    {%- if average_scale != scale + 4 -%}{{ return(none) }}{%- endif -%}
    {%- set count = 'cast(' ~ count_column ~ ' as decimal(20,0))' -%}
    {%- if scale >= 2 and precision <= 34 -%}
        {%- set divided = quotient | format('cast(' ~ sum_column ~ ' as decimal(34,' ~ scale ~ '))', count) -%}
    {%- elif scale < 2 and precision <= 32 + scale -%}
        {%- set shift = '1' ~ '0' * (6 - average_scale) ~ 'BD' -%}
        {%- set divided = '(' ~ quotient | format('cast(' ~ sum_column ~ ' as decimal(' ~ (32 + scale) ~ ',' ~ scale
            ~ '))', count ~ ' * ' ~ shift) ~ ' * ' ~ shift ~ ')' -%}
    {%- else -%}
        {{ return(none) }}
    {%- endif -%}
    {{ return('cast(' ~ divided ~ ' as ' ~ avg_type ~ ')') }}
{% endmacro %}

{#-
    {call: its type over `relation`} for aggregate calls such as 'sum(price)', read once per relation and model (for
    a CTE name, from the model's own WITH clause: _cte_types); none when they cannot be read (a CTE that _cte_types
    cannot describe safely, a temporary view's name, an ephemeral model, dbt's parse phase).
-#}
{% macro _row_types(relation, calls) %}
    {#- A name another macro writes over a relation (a batch's input, incremental_window_aggregate's recompute_input)
        has that relation's types. -#}
    {%- set relation = context.get('window_tvf__types_of', {}).get(relation,
        context.get('window_tvf__batch_relations', {}).get(relation, relation)) if relation is string else relation -%}
    {%- if execute and relation is string -%}
        {#- A CTE of the model: described with the model's WITH clause up to it, when that is safe (cte_sources.sql). -#}
        {{ return(window_tvf._cte_types(relation, calls)) }}
    {%- endif -%}
    {%- if not execute or relation is string or not window_tvf._known_columns(relation) -%}
        {{ return(none) }}
    {%- endif -%}
    {#- In a microbatch batch a ref() carries dbt's event-time filter; the types are the unfiltered relation's. -#}
    {%- set unfiltered = relation.incorporate(event_time_filter=none) if relation.event_time_filter is defined
        and relation.event_time_filter else relation -%}
    {%- set cache = context.get('window_tvf__row_types', {}) -%}
    {%- set missing = [] -%}
    {%- for call in calls if [unfiltered | string, call] | tojson not in cache -%}
        {%- do missing.append(call) -%}
    {%- endfor -%}
    {%- if missing -%}
        {%- set described -%}
            describe query select
                {%- for call in missing %}
                {{ call }} as window_tvf__type_{{ loop.index }}{{ ',' if not loop.last }}
                {%- endfor %}
            from {{ unfiltered }}
        {%- endset -%}
        {%- for row in run_query(described).rows -%}
            {%- do cache.update({[unfiltered | string, missing[loop.index0]] | tojson: row[1] | lower}) -%}
        {%- endfor -%}
        {%- do context.update({'window_tvf__row_types': cache}) -%}
    {%- endif -%}
    {%- set types = {} -%}
    {%- for call in calls -%}
        {%- do types.update({call: cache[[unfiltered | string, call] | tojson]}) -%}
    {%- endfor -%}
    {{ return(types) }}
{% endmacro %}

{#-
    `value` cast to the type of `template` (a column of the same SELECT), in a SELECT that has _typed_window's
    window: each of its partitions is one row, so lag() finds no previous row and gives its default, `value`, which
    Spark implicitly casts to its first argument's type.
-#}
{% macro _value_as_type_of(value, template) -%}
    lag({{ template }}, 1, {{ value }}) over window_tvf__typed
{%- endmacro %}

{#-
    The WINDOW clause that _value_as_type_of needs when `plan` carries templates, else nothing: partitions by `by`,
    the columns that identify an output row (those the rows are already shuffled by come first, so Spark adds a sort
    of each task's rows and no shuffle), ordered by `order`.
-#}
{% macro _typed_window(plan, by, order) -%}
    {%- if plan | selectattr('template', 'defined') | list %}
window window_tvf__typed as (partition by {{ by | join(', ') }} order by {{ order }})
    {%- endif -%}
{%- endmacro %}

{#-
    Whether `additions` chained + of each merged sum's partials (the hop's lead path, _merge_values) keep every
    decimal place. Spark types decimal(P, S) + decimal(P, S) decimal(P + 1, S) up to precision 38; past it, the
    scale gives way, down to 6, and the sum is rounded there. So a sum typed decimal(P, S) with S > 6 and
    P + additions > 38 takes another merge. Unknown types (a CTE name) are checked when the query runs:
    _flat_sum_guard.
-#}
{% macro _flat_sums_exact(plan, additions) %}
    {%- for measure in plan if measure.sum_type is defined -%}
        {%- set decimal = modules.re.match('^decimal\((\d+),(\d+)\)$', measure.sum_type) -%}
        {%- if decimal and (decimal.group(2) | int) > 6 and (decimal.group(1) | int) + additions > 38 -%}
            {{ return(false) }}
        {%- endif -%}
    {%- endfor -%}
    {{ return(true) }}
{% endmacro %}

{#-
    `plan` with every sum typed by a template (types unknown when the model compiled) failing the query when its
    type is a decimal that `additions` chained + would round (_flat_sums_exact). Spark folds the condition while it
    analyses the query, so a type that adds exactly costs nothing.
-#}
{% macro _flat_sum_guard(plan, additions) %}
    {%- set guarded = [] -%}
    {%- for measure in plan -%}
        {%- if measure.sum_template is defined -%}
            {%- set type_name = 'typeof(' ~ measure.sum_template ~ ')' -%}
            {%- set part = "try_cast(regexp_extract(" ~ type_name ~ ", '^decimal[(]([0-9]+),([0-9]+)[)]$', %d) as int)" -%}
            {%- set final -%}
                case
                    when {{ part | format(2) }} > 6 and {{ part | format(1) }} + {{ additions }} > 38 then raise_error(concat(
                        {{ window_tvf._sql_literal('window_tvf.window_aggregate: sum(' ~ measure.sum_of ~ ') is a ') }},
                        {{ type_name }}, {{ window_tvf._sql_literal(', whose decimal places beyond 6 a merge of '
                        ~ (additions + 1) ~ " slices by + would round; pass the input as a ref() or source() relation "
                        ~ "(its types are read when the model compiles) or keys='few'") }}))
                    else {{ measure.final }}
                end
            {%- endset -%}
            {%- do guarded.append(dict(measure, final=final)) -%}
        {%- else -%}
            {%- do guarded.append(measure) -%}
        {%- endif -%}
    {%- endfor -%}
    {{ return(guarded) }}
{% endmacro %}
