{#
    Generic test: `model` and `compare_model` hold the same rows, as multisets (a row twice on one side must be
    twice on the other). Compares `compare_columns`, by default every column of compare_model. Fails with one row
    per difference, labelled 'missing from model' or 'unexpected in model'.
#}
{% test equality(model, compare_model, compare_columns=none) %}
    {{ return(adapter.dispatch('test_equality', 'window_tvf')(model, compare_model, compare_columns)) }}
{% endtest %}

{% macro default__test_equality(model, compare_model, compare_columns=none) %}
    {{ window_tvf.rowset_diff(model, compare_model, compare_columns) }}
{% endmacro %}


{#
    A SELECT of the rows in which `actual` and `expected` (relations, or table/CTE names) differ as multisets, over
    `columns` (default: every column of `expected`, which must then be a relation). Empty when they are equal;
    usable after a WITH clause, so singular tests can compare CTEs.
#}
{% macro rowset_diff(actual, expected, columns=none) %}
    {{ return(adapter.dispatch('rowset_diff', 'window_tvf')(actual, expected, columns)) }}
{% endmacro %}

{% macro default__rowset_diff(actual, expected, columns=none) %}
    {%- if columns is none -%}
        {%- if expected is string -%}
            {{ window_tvf._argument_error('rowset_diff', 'columns', columns,
                "name the columns to compare when 'expected' is a table or CTE name rather than a relation") }}
        {%- endif -%}
        {%- set columns = [] -%}
        {%- if execute -%}
            {%- for column in adapter.get_columns_in_relation(expected) -%}
                {%- do columns.append(adapter.quote(column.name)) -%}
            {%- endfor -%}
        {%- endif -%}
    {%- endif -%}
    {%- set column_list = (columns | join(', ')) if columns else '*' -%}
    {%- set directions = [('missing from model', expected, actual), ('unexpected in model', actual, expected)] -%}
    {%- for label, present, absent in directions %}
select '{{ label }}' as diff, difference.*
from (
    select {{ column_list }} from {{ present }}
    except all
    select {{ column_list }} from {{ absent }}
) as difference
{% if not loop.last %}union all{% endif %}
    {%- endfor %}
{%- endmacro %}


{#
    How many times each distinct row (over `columns`) occurs in each of several rowsets: one row per distinct row,
    its columns and one `<name>_copies` count per rowset of `rowsets` ({name: relation or CTE name}). Two rowsets
    hold the same multiset where their counts agree on every row. Each rowset is read once, where rowset_diff reads
    both sides twice: Spark inlines a CTE at every reference, so comparing a reference plan's results with two
    others by rowset_diff computed the reference four times (the sliced path's equality tests).
#}
{% macro _rowset_copies(rowsets, columns) %}
    {%- set column_list = columns | join(', ') %}
    select
        {{ column_list }},
        {%- for name in rowsets %}
        count_if(window_tvf__rowset = '{{ name }}') as {{ name }}_copies{{ ',' if not loop.last }}
        {%- endfor %}
    from (
        {%- for name, relation in rowsets.items() %}
        select '{{ name }}' as window_tvf__rowset, {{ column_list }} from {{ relation }}
        {%- if not loop.last %}
        union all
        {%- endif %}
        {%- endfor %}
    ) as every_rowset
    group by {{ column_list }}
{% endmacro %}
