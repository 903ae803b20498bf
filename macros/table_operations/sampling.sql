{#
    Deterministic sampling and splitting. Each row gets a number u in [0, 1) from a 64-bit hash of the seed and the
    row (all its columns, or `key_columns`), so the same rows are chosen on every run and however Spark partitions
    the data (unlike rand(), whose values depend on partitioning). Identical rows hash alike and go together;
    with key_columns, all rows of a key go together.
#}

{#- u in [0, 1): the hash's low 53 bits over 2^53, a double division that is exact (a decimal one would round). -#}
{% macro _row_fraction(seed, key_columns, qualifier) %}
    {%- set keys = [] -%}
    {%- for key in key_columns -%}{%- do keys.append(qualifier ~ '.' ~ key) -%}{%- endfor -%}
    {{ return('(pmod(xxhash64(' ~ seed ~ ', ' ~ ((keys | join(', ')) if keys else qualifier ~ '.*') ~ '), 9007199254740992) / 9007199254740992D)') }}
{% endmacro %}

{#-
    What sample, split and split_part share: `from`, the relation as source_rows with u for each of its rows, and
    `u` (key_columns checked against a ref()/source() relation). The seed is a whole number from 0 to bigint's
    maximum. u comes from a one-row lateral subquery (a projection in Spark's plan), not the WHERE clause: Spark 3.5
    expands `source_rows.*` inside a function in a SELECT list, not in a filter.
-#}
{% macro _sampling_plan(relation, seed, key_columns, macro_name) %}
    {%- set relation = window_tvf._relation(relation, macro_name) -%}
    {%- set keys = window_tvf._column_names(key_columns, macro_name, 'key_columns') -%}
    {%- do window_tvf._existing_columns(keys, window_tvf._known_columns(relation), relation, macro_name, 'key_columns') -%}
    {%- set seed = 0 if seed is none else window_tvf._positive_integer(seed, macro_name, 'seed', minimum=0) -%}
    {{ return({'from': relation ~ ' as source_rows,\n    lateral (select ' ~ window_tvf._row_fraction(seed, keys, 'source_rows')
        ~ ' as window_tvf__u) as sampled', 'u': 'sampled.window_tvf__u'}) }}
{% endmacro %}

{#- A finite number (not a bool, string, nan or infinity). -#}
{% macro _is_finite_number(value) %}
    {{ return(value is number and value is not sameas true and value is not sameas false
        and (value | string | lower) not in ('nan', 'inf', '-inf', 'infinity', '-infinity')) }}
{% endmacro %}


{#- sample(relation, fraction, seed=none, key_columns=none): about `fraction` of the rows (0 <= fraction <= 1). -#}
{% macro sample(relation, fraction, seed=none, key_columns=none) %}
    {{ return(adapter.dispatch('sample', 'window_tvf')(relation, fraction, seed, key_columns)) }}
{% endmacro %}

{% macro default__sample(relation, fraction, seed=none, key_columns=none) %}
    {%- if not window_tvf._is_finite_number(fraction) or fraction < 0 or fraction > 1 -%}
        {{ window_tvf._argument_error('sample', 'fraction', fraction, "expected a number from 0 to 1") }}
    {%- endif -%}
    {%- set plan = window_tvf._sampling_plan(relation, seed, key_columns, 'sample') -%}
select source_rows.*
from {{ plan.from }}
where {{ plan.u }} < {{ fraction }}
{%- endmacro %}


{#-
    split(relation, weights, seed=none, key_columns=none): every row once, with `split_index` (0-based) telling
    which split it belongs to; split i gets about weights[i] / sum(weights) of the rows. Bounds are cumulative
    (the reference's SQL compares the second split with 0.2 / 0.6 instead of 0.3 / 0.6; its intent is followed).
-#}
{% macro split(relation, weights, seed=none, key_columns=none) %}
    {{ return(adapter.dispatch('split', 'window_tvf')(relation, weights, seed, key_columns)) }}
{% endmacro %}

{% macro default__split(relation, weights, seed=none, key_columns=none) %}
    {%- set bounds = window_tvf._split_bounds(weights, 'split') -%}
    {%- set plan = window_tvf._sampling_plan(relation, seed, key_columns, 'split') -%}
select
    source_rows.*,
    case
        {%- for bound in bounds[:-1] %}
        when {{ plan.u }} < {{ bound }} then {{ loop.index0 }}
        {%- endfor %}
        else {{ bounds | length - 1 }}
    end as split_index
from {{ plan.from }}
{%- endmacro %}


{#- split_part(relation, weights, index, seed=none, key_columns=none): the rows of split `index` alone, for one model per split. -#}
{% macro split_part(relation, weights, index, seed=none, key_columns=none) %}
    {{ return(adapter.dispatch('split_part', 'window_tvf')(relation, weights, index, seed, key_columns)) }}
{% endmacro %}

{% macro default__split_part(relation, weights, index, seed=none, key_columns=none) %}
    {%- set bounds = window_tvf._split_bounds(weights, 'split_part') -%}
    {%- set index = window_tvf._positive_integer(index, 'split_part', 'index', minimum=0) -%}
    {%- if index >= bounds | length -%}
        {{ window_tvf._argument_error('split_part', 'index', index, "expected 0 to " ~ (bounds | length - 1) ~ " for " ~ (weights | length) ~ " weights") }}
    {%- endif -%}
    {%- set plan = window_tvf._sampling_plan(relation, seed, key_columns, 'split_part') -%}
select source_rows.*
from {{ plan.from }}
where {{ plan.u }} >= {{ 0 if index == 0 else bounds[index - 1] }}
    {%- if index < bounds | length - 1 %} and {{ plan.u }} < {{ bounds[index] }}{% endif %}
{%- endmacro %}


{#- Cumulative upper bounds of the splits in [0, 1]; the last is 1. -#}
{% macro _split_bounds(weights, macro_name) %}
    {%- set allowed = "expected a list of at least two non-negative numbers with a positive sum, e.g. [0.8, 0.1, 0.1]" -%}
    {%- if weights is string or weights is mapping or weights is not iterable or (weights | length) < 2 -%}
        {{ window_tvf._argument_error(macro_name, 'weights', weights, allowed) }}
    {%- endif -%}
    {%- for weight in weights if not window_tvf._is_finite_number(weight) or weight < 0 -%}
        {{ window_tvf._argument_error(macro_name, 'weights', weights, allowed) }}
    {%- endfor -%}
    {%- set total = weights | sum -%}
    {%- if total <= 0 -%}
        {{ window_tvf._argument_error(macro_name, 'weights', weights, allowed) }}
    {%- endif -%}
    {%- set bounds = [] -%}
    {%- set running = namespace(sum=0) -%}
    {%- for weight in weights -%}
        {%- set running.sum = running.sum + weight -%}
        {%- do bounds.append(1 if loop.last else running.sum / total) -%}
    {%- endfor -%}
    {{ return(bounds) }}
{% endmacro %}
