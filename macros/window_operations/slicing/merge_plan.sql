{#
    Which aggregates window_aggregate can compute from partial results (Flink's slicing): each aggregate's partial
    call per slice and how partials merge. Used by every sliced window kind (macros/window_operations/slicing/).
#}

{#-
    How each aggregate merges: a list of {name, partials: [(column, partial call, merge function)], final}, or
    none when some aggregate cannot be merged (e.g. percentile, collect_list, count(distinct x) FILTER (...)).
    A sum (and an avg's sum) also has sum_of (its argument), sum_column (its partial column) and sum_final (the final
    value, %s for the merged sum): merges widen a decimal sum, which _typed_plan (types.sql) casts back to the row
    path's type. An avg also has avg_of and count_column: its final value is its merged sum divided by its merged
    count as Spark's avg divides (one rounding, at the scale of avg's type), which _typed_plan writes. The HLL forms (approx_distinct, ...;
    macros/internal/distinct_aggregates.sql) merge their slices' sketches with hll_union_agg. With
    `exact_distinct` (hop and cumulate), count(distinct x) is planned as {name, partials: [], final, distinct: x}:
    its count is not merged from partials but counted from the (key, x, slice) rows (distinct.sql); when no
    aggregate has partials, a hidden count(*) gives the windows that exist.
-#}
{% macro _merge_plan(measures, exact_distinct=false) %}
    {%- set merges = {'count': 'sum', 'count_if': 'sum', 'sum': 'sum', 'min': 'min', 'max': 'max',
        'bool_and': 'bool_and', 'every': 'bool_and', 'bool_or': 'bool_or', 'some': 'bool_or'} -%}
    {%- set plan = [] -%}
    {%- for name, call in measures.items() -%}
        {%- set single_call = window_tvf._single_call(call) -%}
        {%- if single_call is none -%}
            {{ return(none) }}
        {%- endif -%}
        {%- set function, arguments = single_call -%}
        {%- set sketch = window_tvf._sketch_call(name, call, 'window_aggregate') -%}
        {%- set distinct_value = window_tvf._exact_distinct_value(call) if exact_distinct else none -%}
        {%- if sketch is not none -%}
            {%- set partial = window_tvf._sketch_row_aggregate(dict(sketch, sketch_out=true)) -%}
            {%- do plan.append({'name': name, 'partials': [('partial_' ~ name, partial, 'hll_union_agg')],
                'final': 'partial_' ~ name if sketch.sketch_out else window_tvf._sketch_estimate('partial_' ~ name)}) -%}
        {%- elif distinct_value is not none -%}
            {%- do plan.append({'name': name, 'partials': [], 'final': 'window_tvf__distinct_' ~ loop.index,
                'distinct': distinct_value}) -%}
        {%- elif (arguments | trim | lower).startswith('distinct') -%}
            {{ return(none) }}
        {%- elif function in ('avg', 'mean') -%}
            {%- set sum_final = 'try_divide(%s, partial_' ~ name ~ '_count)' -%}
            {%- do plan.append({'name': name, 'partials': [
                ('partial_' ~ name ~ '_sum', 'sum(' ~ arguments ~ ')', 'sum'),
                ('partial_' ~ name ~ '_count', 'count(' ~ arguments ~ ')', 'sum')],
                'final': sum_final | format('partial_' ~ name ~ '_sum'),
                'sum_of': arguments, 'sum_column': 'partial_' ~ name ~ '_sum', 'sum_final': sum_final,
                'avg_of': arguments, 'count_column': 'partial_' ~ name ~ '_count'}) -%}
        {%- elif function == 'sum' -%}
            {%- do plan.append({'name': name, 'partials': [('partial_' ~ name, call, 'sum')], 'final': 'partial_' ~ name,
                'sum_of': arguments, 'sum_column': 'partial_' ~ name, 'sum_final': '%s'}) -%}
        {%- elif function in merges -%}
            {%- do plan.append({'name': name, 'partials': [('partial_' ~ name, call, merges[function])],
                'final': 'partial_' ~ name}) -%}
        {%- else -%}
            {{ return(none) }}
        {%- endif -%}
    {%- endfor -%}
    {%- if exact_distinct and not window_tvf._partial_columns(plan) -%}
        {%- do plan.append({'name': none, 'hidden': true, 'partials': [('window_tvf__rows', 'count(*)', 'sum')],
            'final': none}) -%}
    {%- endif -%}
    {{ return(plan) }}
{% endmacro %}

{#- The distinct measures of a plan (exact count(distinct x), counted by distinct.sql). -#}
{% macro _distinct_measures(plan) %}
    {{ return(plan | selectattr('distinct', 'defined') | list) }}
{% endmacro %}

{#- `merge`(`column`) as an aggregate: sketches of different precisions union to the smallest. -#}
{% macro _merge_call(merge, column) -%}
    {{ merge }}({{ column }}{{ ', true' if merge == 'hll_union_agg' }})
{%- endmacro %}

{#-
    A plan for windows that are one slice each (tumble): every aggregate computed whole per slice, never merged, so
    any aggregate works (count(distinct x), percentiles, FILTER clauses), each as on the row path.
-#}
{% macro _whole_plan(measures) %}
    {%- set plan = [] -%}
    {%- for name, call in measures.items() -%}
        {%- do plan.append({'name': name, 'partials': [('partial_' ~ name, window_tvf._row_aggregate(call), none)],
            'final': 'partial_' ~ name}) -%}
    {%- endfor -%}
    {{ return(plan) }}
{% endmacro %}

{#-
    Whether some aggregate reads what only the row path's rows have: a window column (window_start, window_end,
    window_time) or every column (`*`, `t.*`; count(*) aside). Sliced rows carry neither, so these take the row path.
-#}
{% macro _reads_window_rows(measures) %}
    {%- for call in measures.values() -%}
        {%- set stripped = modules.re.sub("'(?:[^']|'')*'", "''", call) -%}
        {%- if modules.re.search('(?i)\\bwindow_(start|end|time)\\b', stripped) -%}{{ return(true) }}{%- endif -%}
        {%- if modules.re.search('(^|[(,.])\\s*\\*\\s*($|[),])', modules.re.sub('(?i)\\bcount\\s*\\(\\s*\\*\\s*\\)', '', stripped)) -%}
            {{ return(true) }}
        {%- endif -%}
    {%- endfor -%}
    {{ return(false) }}
{% endmacro %}

{#- Every partial column of a merge plan, as (column, partial call, merge function). -#}
{% macro _partial_columns(plan) %}
    {%- set columns = [] -%}
    {%- for measure in plan -%}{%- do columns.extend(measure.partials) -%}{%- endfor -%}
    {{ return(columns) }}
{% endmacro %}

{#- The row path's call for an aggregate: the call itself (Spark's types and values), a sketch in its row form. -#}
{% macro _row_aggregate(call) %}
    {%- set sketch = window_tvf._sketch_call('aggregate', call, 'window_aggregate') -%}
    {%- if sketch is not none -%}{{ return(window_tvf._sketch_row_aggregate(sketch)) }}{%- endif -%}
    {{ return(call) }}
{% endmacro %}

{#-
    [function name, arguments] when `call` is exactly one function call, such as 'sum(price * qty)'; none for a
    compound expression such as 'max(a) - min(a)', which cannot be merged from partials of its parts' kind.
-#}
{% macro _single_call(call) %}
    {%- set match = modules.re.match("(?s)^\s*([A-Za-z_][A-Za-z0-9_]*)\s*\((.*)\)\s*$", call) -%}
    {%- if not match or not window_tvf._argument_scan(match.group(2)).balanced -%}{{ return(none) }}{%- endif -%}
    {{ return([match.group(1) | lower, match.group(2)]) }}
{% endmacro %}

{#-
    A call's argument text scanned outside quotes: {'parts': the text split at its top-level commas, each trimmed;
    'balanced': whether its parentheses close in order and all close (else 'max(a) - min(a)' read as one call).
-#}
{% macro _argument_scan(arguments) %}
    {%- set scan = namespace(depth=0, closed_early=false, quote=none, part='') -%}
    {%- set parts = [] -%}
    {%- for character in arguments -%}
        {%- if scan.quote -%}
            {%- if character == scan.quote -%}{%- set scan.quote = none -%}{%- endif -%}
        {%- elif character in ("'", '"', '`') -%}
            {%- set scan.quote = character -%}
        {%- elif character == '(' -%}
            {%- set scan.depth = scan.depth + 1 -%}
        {%- elif character == ')' -%}
            {%- set scan.depth = scan.depth - 1 -%}
            {%- if scan.depth < 0 -%}{%- set scan.closed_early = true -%}{%- endif -%}
        {%- endif -%}
        {%- if character == ',' and scan.depth == 0 and not scan.quote -%}
            {%- do parts.append(scan.part | trim) -%}
            {%- set scan.part = '' -%}
        {%- else -%}
            {%- set scan.part = scan.part ~ character -%}
        {%- endif -%}
    {%- endfor -%}
    {%- do parts.append(scan.part | trim) -%}
    {{ return({'parts': parts, 'balanced': not scan.closed_early and scan.depth == 0}) }}
{% endmacro %}

{#-
    Merge the partial values `values` (SQL expressions, NULL where a partial is absent) with `merge` (a merge
    function of _merge_plan) in one flat expression, without an aggregate: sum adds the present values (NULL when
    none is), min/max and bool_and/bool_or take least/greatest, which skip NULLs (false < true for booleans), HLL
    sketches fold the present ones with hll_union.
-#}
{% macro _merge_values(merge, values) %}
    {%- if values | length == 1 -%}{{ return(values[0]) }}{%- endif -%}
    {%- if merge == 'sum' -%}
        {%- set present = [] -%}
        {%- for value in values -%}{%- do present.append('coalesce(' ~ value ~ ', 0)') -%}{%- endfor -%}
        {{ return('case when coalesce(' ~ values | join(', ') ~ ') is null then null else ' ~ present | join(' + ') ~ ' end') }}
    {%- endif -%}
    {%- if merge == 'hll_union_agg' -%}
        {{ return('aggregate(filter(array(' ~ values | join(', ') ~ '), window_tvf__s -> window_tvf__s is not null), '
            ~ 'cast(null as binary), (window_tvf__u, window_tvf__s) -> if(window_tvf__u is null, window_tvf__s, '
            ~ 'hll_union(window_tvf__u, window_tvf__s, true)))') }}
    {%- endif -%}
    {{ return({'min': 'least', 'bool_and': 'least', 'max': 'greatest', 'bool_or': 'greatest'}[merge]
        ~ '(' ~ values | join(', ') ~ ')') }}
{% endmacro %}
