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
    `columns`: the names of from_sql's columns, in order and spelled as they are, when known (a ref()/source()
    relation): the whole row is then those columns as sort keys, as a struct of them compares (field by field, NULLs
    first ascending), and the output lists them (`* except` would need Spark 4.0). Unknown (a CTE), the row travels as
    one struct, which is also the tie-breaking sort key.
-#}
{% macro _first_rows(from_sql, n, ordering, partition, rank_column, macro_name, reverse_tie_break=false, columns=none) %}
    {%- if rank_column is not none -%}
        {%- do window_tvf._column_name(rank_column, macro_name, 'rank_column') -%}
    {%- endif -%}
    {%- set direction = ' desc' if reverse_tie_break else '' -%}
    {%- if columns -%}
        {%- set tie_break = [] -%}
        {%- for column in columns -%}
            {%- do tie_break.append('ranked_input.`' ~ column | replace('`', '``') ~ '`' ~ direction) -%}
        {%- endfor -%}
select
    {%- for column in columns %}
    ranked_rows.`{{ column | replace('`', '``') }}`{{ ',' if rank_column or not loop.last }}
    {%- endfor %}
    {%- if rank_column %}
    ranked_rows.window_tvf__row_position as {{ rank_column }}
    {%- endif %}
from (
    select
        ranked_input.*,
        row_number() over (
            {{ 'partition by ' ~ partition | join(', ') if partition }}
            order by {{ (ordering + tie_break) | join(', ') }}
        ) as window_tvf__row_position
    from ({{ from_sql }}) as ranked_input
) as ranked_rows
where ranked_rows.window_tvf__row_position <= {{ n }}
    {%- else -%}
        {%- set on_row = [] -%}
        {%- for item in partition + ordering -%}
            {%- if not item.startswith('ranked_input.') -%}
                {{ exceptions.raise_compiler_error('window_tvf._first_rows: expected items qualified with ranked_input, got ' ~ item) }}
            {%- endif -%}
            {%- do on_row.append('ranked_row.' ~ item[('ranked_input.' | length):]) -%}
        {%- endfor -%}
select
    ranked_rows.ranked_row.*{{ ',' if rank_column }}
    {%- if rank_column %}
    ranked_rows.row_position as {{ rank_column }}
    {%- endif %}
from (
    select
        ranked_row,
        row_number() over (
            {{ 'partition by ' ~ on_row[:partition | length] | join(', ') if partition }}
            order by {{ on_row[partition | length:] | join(', ') }}, ranked_row{{ direction }}
        ) as row_position
    from (select struct(ranked_input.*) as ranked_row from ({{ from_sql }}) as ranked_input) as structured
) as ranked_rows
where ranked_rows.row_position <= {{ n }}
    {%- endif -%}
{%- endmacro %}

{#- The column names of `relation` windowed by `window` (none: already windowed), in order; none when unknown. -#}
{% macro _windowed_columns(relation, window) %}
    {%- set known = window_tvf._known_column_names(relation) -%}
    {%- if not known -%}{{ return(none) }}{%- endif -%}
    {{ return(known + ([] if window is none else ['window_start', 'window_end', 'window_time'])) }}
{% endmacro %}
