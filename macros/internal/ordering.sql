{#
    Ordering specs such as ['price desc', 'bidtime', 'score asc nulls last']: a column name, optional asc/desc,
    optional nulls first/last. Without a nulls clause Spark's default applies: NULLs first for asc, last for desc.
    Returns the SQL order-by items, each column qualified by `qualifier`; `reverse` turns the order around
    (asc <-> desc, nulls first <-> last), which is how "keep the last row" reuses "keep the first row". With
    `columns` (a relation's known columns), each item's column must be one of them.
#}
{% macro _order_by(items, macro_name, argument, qualifier, reverse=false, relation=none, columns={}) %}
    {%- set items = [items] if items is string else items -%}
    {%- if items is none or items is mapping or items is not iterable or (items | length) == 0 -%}
        {{ window_tvf._argument_error(macro_name, argument, items,
            "expected a non-empty list such as ['price desc', 'bidtime asc nulls last']") }}
    {%- endif -%}
    {%- set flipped = {'asc': 'desc', 'desc': 'asc', 'first': 'last', 'last': 'first'} -%}
    {%- set rendered = [] -%}
    {%- for item in items -%}
        {%- set match = modules.re.match(
            "^\s*([A-Za-z_][A-Za-z0-9_]*|`(?:[^`]|``)+`)(?:\s+(asc|desc))?(?:\s+nulls\s+(first|last))?\s*$",
            item if item is string else '', modules.re.IGNORECASE) -%}
        {%- if not match -%}
            {{ window_tvf._argument_error(macro_name, argument, item,
                "each item is a column name with optional asc/desc and nulls first/last, e.g. 'price desc nulls last'") }}
        {%- endif -%}
        {%- do window_tvf._existing_columns([match.group(1)], columns, relation, macro_name, argument) -%}
        {%- set direction = (match.group(2) or 'asc') | lower -%}
        {%- set nulls = (match.group(3) or '') | lower -%}
        {%- if reverse -%}
            {%- set direction = flipped[direction] -%}
            {%- set nulls = flipped[nulls] if nulls else '' -%}
        {%- endif -%}
        {%- do rendered.append(qualifier ~ '.' ~ match.group(1) ~ ' ' ~ direction ~ (' nulls ' ~ nulls if nulls else '')) -%}
    {%- endfor -%}
    {{ return(rendered) }}
{% endmacro %}


{#-
    The first `n` rows of each partition of `from_sql` (a SELECT) by `ordering` (rendered items qualified with
    `ranked_input`), then by the whole row, so ties resolve the same way on every run. The row keeps its columns;
    `rank_column`, when named, holds its position. Shared by topn, deduplicate and their window versions.
-#}
{% macro _first_rows(from_sql, n, ordering, partition, rank_column, macro_name, reverse_tie_break=false) %}
    {%- if rank_column is not none -%}
        {%- do window_tvf._column_name(rank_column, macro_name, 'rank_column') -%}
    {%- endif -%}
select
    ranked_rows.ranked_row.*{{ ',' if rank_column }}
    {%- if rank_column %}
    ranked_rows.row_position as {{ rank_column }}
    {%- endif %}
from (
    select
        struct(ranked_input.*) as ranked_row,
        row_number() over (
            {{ 'partition by ' ~ partition | join(', ') if partition }}
            order by {{ ordering | join(', ') }}, struct(ranked_input.*){{ ' desc' if reverse_tie_break }}
        ) as row_position
    from ({{ from_sql }}) as ranked_input
) as ranked_rows
where ranked_rows.row_position <= {{ n }}
{%- endmacro %}
