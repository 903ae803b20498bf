{#
    Distinct counts in window_aggregate's aggregates: exact `count(distinct x)`, and the HyperLogLog forms a user
    asks for by name (Spark's hll_* functions, from Apache DataSketches, Spark 3.5 on):
      approx_distinct(x[, lg_k])         the estimated number of distinct non-NULL x (bigint);
      approx_distinct_sketch(x[, lg_k])  the HLL sketch of x (binary), to keep in a table;
      approx_distinct_union(s)           the estimated distinct count of the union of sketches s (a cascade);
      approx_distinct_union_sketch(s)    the union of sketches s, as a sketch.
    lg_k (log2 of the sketch's registers, 4..21, default 12) sets the precision: relative standard error about
    1.04 / sqrt(2^lg_k) (docs/distinct_counts.md). x must be an int, bigint, string or binary (what hll_sketch_agg
    takes); s a binary sketch. Used by window_aggregate's argument checks, its row path and the merge plan.
#}

{#- The approximate forms: name -> (hll call on the rows, whether it reads sketches, whether it returns a sketch). -#}
{% macro _sketch_forms() %}
    {{ return({
        'approx_distinct': {'sketches': false, 'sketch_out': false},
        'approx_distinct_sketch': {'sketches': false, 'sketch_out': true},
        'approx_distinct_union': {'sketches': true, 'sketch_out': false},
        'approx_distinct_union_sketch': {'sketches': true, 'sketch_out': true},
    }) }}
{% endmacro %}

{#- Spark's default lgConfigK for hll_sketch_agg, and the range it accepts. -#}
{% macro _sketch_lg_k_default() %}{{ return(12) }}{% endmacro %}

{#-
    An approximate distinct call parsed and checked: {'form', 'value', 'lg_k', 'sketches', 'sketch_out'}, or none
    when `call` is not one of the forms. A wrong argument count or precision is a compile error naming the macro.
-#}
{% macro _sketch_call(name, call, macro_name) %}
    {%- set single_call = window_tvf._single_call(call) -%}
    {%- set forms = window_tvf._sketch_forms() -%}
    {%- if single_call is none or single_call[0] not in forms -%}{{ return(none) }}{%- endif -%}
    {%- set form, arguments = single_call[0], window_tvf._argument_scan(single_call[1]).parts -%}
    {%- set spec = forms[form] -%}
    {%- set allowed_count = 1 if spec.sketches else 2 -%}
    {%- if arguments[0] == '' or (arguments[0] | lower).startswith('distinct ') or arguments | length > allowed_count -%}
        {{ window_tvf._argument_error(macro_name, 'aggregates', {name: call},
            form ~ (" takes one argument, a column of HLL sketches (binary, from approx_distinct_sketch or Spark's "
            ~ "hll_sketch_agg), e.g. " ~ form ~ "(user_sketch)" if spec.sketches else " takes a value (a column or "
            ~ "expression of type int, bigint, string or binary) and optionally the sketch precision lg_k, an "
            ~ "integer from 4 to 21 (default 12), e.g. " ~ form ~ "(user_id) or " ~ form ~ "(user_id, 14)")) }}
    {%- endif -%}
    {%- set lg_k = window_tvf._sketch_lg_k_default() -%}
    {%- if arguments | length == 2 -%}
        {%- if not modules.re.match('^[0-9]+$', arguments[1]) or not (4 <= arguments[1] | int <= 21) -%}
            {{ window_tvf._argument_error(macro_name, 'aggregates', {name: call},
                "the sketch precision lg_k of " ~ form ~ " is " ~ (arguments[1] | tojson) ~ "; expected an integer "
                ~ "from 4 to 21 (log2 of the sketch's registers, Spark's hll_sketch_agg lgConfigK; default 12: "
                ~ "relative standard error about 1.6%)") }}
        {%- endif -%}
        {%- set lg_k = arguments[1] | int -%}
    {%- endif -%}
    {{ return(dict(spec, form=form, value=arguments[0], lg_k=lg_k)) }}
{% endmacro %}

{#- The value of an exact `count(distinct x)` (one argument, no FILTER), or none for any other call. -#}
{% macro _exact_distinct_value(call) %}
    {%- set single_call = window_tvf._single_call(call) -%}
    {%- if single_call is none or single_call[0] != 'count' -%}{{ return(none) }}{%- endif -%}
    {%- set match = modules.re.match('(?is)^\s*distinct(\s+|(?=\())(.+)$', single_call[1]) -%}
    {%- if not match or window_tvf._argument_scan(match.group(2)).parts | length != 1 -%}{{ return(none) }}{%- endif -%}
    {{ return(match.group(2) | trim) }}
{% endmacro %}

{#- The row path's SQL for an approximate form: Spark's hll functions over the window's rows. -#}
{% macro _sketch_row_aggregate(sketch) %}
    {%- set sketch_sql = 'hll_union_agg(' ~ sketch.value ~ ', true)' if sketch.sketches
        else 'hll_sketch_agg(' ~ sketch.value ~ ', ' ~ sketch.lg_k ~ ')' -%}
    {{ return(sketch_sql if sketch.sketch_out else window_tvf._sketch_estimate(sketch_sql)) }}
{% endmacro %}

{#-
    The estimate of a sketch, the same whichever way the sketch was built. DataSketches estimates a sketch fed one
    value at a time with its HIP estimator and a union of sketches with its composite estimator (from the registers
    alone), so one window's estimate would depend on how its rows were split (per slice, or per Spark partition:
    hll_sketch_agg unions its partial sketches). A union with itself makes every estimate the composite one, a
    function of the window's distinct values only: both paths give the same rows (measured: docs/distinct_counts.md).
-#}
{% macro _sketch_estimate(sketch_sql) -%}
    hll_sketch_estimate(hll_union({{ sketch_sql }}, {{ sketch_sql }}, true))
{%- endmacro %}

{#-
    The types each approximate form reads, checked when the relation's columns are known and the value is a column
    name: hll_sketch_agg takes int, bigint, string and binary; the union forms take sketches (binary). An expression
    is left to Spark, which names the type it got when the query runs.
-#}
{% macro _check_sketch_columns(relation, measures, macro_name) %}
    {%- set sketches = {} -%}
    {%- for name, call in measures.items() -%}
        {%- set sketch = window_tvf._sketch_call(name, call, macro_name) -%}
        {%- if sketch is not none -%}{%- do sketches.update({name: sketch}) -%}{%- endif -%}
    {%- endfor -%}
    {#- The relation's columns are read (a `describe`, once per model) only when there is a sketch to check. -#}
    {%- set columns = window_tvf._known_columns(relation) if sketches and relation is not string else {} -%}
    {%- for name, sketch in sketches.items() -%}
        {%- set call = measures[name] -%}
        {%- set column = window_tvf._unquoted(sketch.value) | lower -%}
        {%- if column in columns -%}
            {%- set allowed = ['binary'] if sketch.sketches else ['int', 'bigint', 'string', 'binary'] -%}
            {%- if columns[column] not in allowed -%}
                {{ window_tvf._argument_error(macro_name, 'aggregates', {name: call},
                    "column " ~ sketch.value ~ " is of type " ~ columns[column] ~ "; " ~ sketch.form ~ " reads "
                    ~ (("HLL sketches (binary, from approx_distinct_sketch or hll_sketch_agg)") if sketch.sketches
                    else "int, bigint, string or binary (what Spark's hll_sketch_agg takes): cast it first, e.g. "
                    ~ sketch.form ~ "(cast(" ~ sketch.value ~ " as " ~ ('bigint' if columns[column] in
                    ('tinyint', 'smallint') else 'string') ~ "))")) }}
            {%- endif -%}
        {%- endif -%}
    {%- endfor -%}
{% endmacro %}
