{#
    What a relation given by name is built on, for what is read from the warehouse when a model compiles (the
    slices' shuffle estimate, shuffle.sql). A name is a table's or a CTE's of the calling model: the warehouse
    knows a table but not a CTE. So a schema-qualified name is looked up in the warehouse (and then taken as that
    relation by every macro: _relation, arguments.sql), and a CTE name is
    followed to the relations its definition in the model's own SQL selects from: a ref(), a source() or a
    schema-qualified table, through other CTEs of the model. Only performance follows from this (an estimate of
    how the rows group), never a result or a type: a name that cannot be followed is left unknown.
#}

{#-
    The relation the warehouse knows that `name` is, or is built on, and that has every column of `columns`; none
    when there is none (an unknown name, a CTE over relations without those columns, a relation not built yet, or
    dbt's parse phase). `depth` bounds the CTEs followed.
-#}
{% macro _built_on(name, columns, depth=0) %}
    {%- if not execute or depth > 8 -%}{{ return(none) }}{%- endif -%}
    {%- set table = window_tvf._warehouse_table(name) -%}
    {%- if table is not none -%}{{ return(window_tvf._with_columns(table, columns)) }}{%- endif -%}
    {%- set body = window_tvf._cte_body(window_tvf._unquoted(name | trim)) -%}
    {%- if body is none -%}{{ return(none) }}{%- endif -%}
    {%- for found in window_tvf._read_relations(body) -%}
        {%- set candidate = window_tvf._built_on(found.name, columns, depth + 1) if found.name is defined
            else window_tvf._with_columns(found.relation, columns) -%}
        {%- if candidate is not none -%}{{ return(candidate) }}{%- endif -%}
    {%- endfor -%}
    {{ return(none) }}
{% endmacro %}

{#-
    The table or view that a schema-qualified `name` ('analytics.bids', `analytics`.`bids`) names, when the
    warehouse has it (one `describe`, kept in the model's context); none for any other name (a CTE's cannot be
    qualified) or a table that does not exist (yet).
-#}
{% macro _warehouse_table(name) %}
    {%- set qualified = modules.re.match('^`?([A-Za-z_][A-Za-z0-9_]*)`?\.`?([A-Za-z_][A-Za-z0-9_]*)`?$', name | trim) -%}
    {%- if not execute or not qualified -%}{{ return(none) }}{%- endif -%}
    {%- set table = api.Relation.create(schema=qualified.group(1), identifier=qualified.group(2)) -%}
    {{ return(table if window_tvf._known_columns(table) else none) }}
{% endmacro %}

{#- `relation` when it exists and has every column of `columns` (names as SQL gives them), else none. -#}
{% macro _with_columns(relation, columns) %}
    {%- if relation is none -%}{{ return(none) }}{%- endif -%}
    {%- set known = window_tvf._known_columns(relation) -%}
    {%- for column in columns if window_tvf._unquoted(column) | lower not in known -%}
        {{ return(none) }}
    {%- endfor -%}
    {{ return(relation if known else none) }}
{% endmacro %}

{#-
    The text of the calling model's CTE `name` (between the parentheses of `name as (...)`, as written, Jinja
    included), or none: no such CTE in the model's SQL, or no model (a macro run on its own).
-#}
{% macro _cte_body(name) %}
    {%- set raw = model.get('raw_code') if model is mapping else none -%}
    {%- if not raw -%}{{ return(none) }}{%- endif -%}
    {%- set start = modules.re.search('(?i)(?:\\bwith|,)\\s*`?' ~ modules.re.escape(name) ~ '`?\\s+as\\s*\\(', raw) -%}
    {%- if not start -%}{{ return(none) }}{%- endif -%}
    {%- set scan = namespace(depth=1, quote=none, end=none) -%}
    {%- for character in raw[start.end():] if scan.end is none -%}
        {%- if scan.quote -%}
            {%- if character == scan.quote -%}{%- set scan.quote = none -%}{%- endif -%}
        {%- elif character in ("'", '"', '`') -%}
            {%- set scan.quote = character -%}
        {%- elif character == '(' -%}
            {%- set scan.depth = scan.depth + 1 -%}
        {%- elif character == ')' -%}
            {%- set scan.depth = scan.depth - 1 -%}
            {%- if scan.depth == 0 -%}{%- set scan.end = loop.index0 -%}{%- endif -%}
        {%- endif -%}
    {%- endfor -%}
    {{ return(none if scan.end is none else raw[start.end():start.end() + scan.end]) }}
{% endmacro %}

{#-
    What `body` (a CTE's SQL as written) reads, in order: {relation} for each ref() and source() call that the
    model declares (dbt knows the model depends on it), {name} for each other name after FROM or JOIN (another CTE,
    or a schema-qualified table).
-#}
{% macro _read_relations(body) %}
    {%- set found = [] -%}
    {%- set pattern = "(?is)\\b(ref|source)\\s*\\(\\s*['\"]([^'\"]+)['\"]\\s*(?:,\\s*['\"]([^'\"]+)['\"]\\s*)?\\)"
        ~ "|\\b(?:from|join)\\s+(`?[A-Za-z_][A-Za-z0-9_]*`?(?:\\.`?[A-Za-z_][A-Za-z0-9_]*`?)?)" -%}
    {%- for match in modules.re.finditer(pattern, body) -%}
        {%- if match.group(1) | lower == 'ref' -%}
            {%- set ref_name = match.group(3) or match.group(2) -%}
            {%- set package = match.group(2) if match.group(3) else none -%}
            {%- set declared = model.get('refs', []) | selectattr('name', 'equalto', ref_name) | list -%}
            {%- if declared and (package is none or declared | selectattr('package', 'equalto', package) | list) -%}
                {%- do found.append({'relation': ref(package, ref_name) if package else ref(ref_name)}) -%}
            {%- endif -%}
        {%- elif match.group(1) | lower == 'source' and match.group(3) -%}
            {%- if [match.group(2), match.group(3)] in model.get('sources', []) | map('list') | list -%}
                {%- do found.append({'relation': source(match.group(2), match.group(3))}) -%}
            {%- endif -%}
        {%- elif match.group(4) -%}
            {%- do found.append({'name': match.group(4).replace('`', '')}) -%}
        {%- endif -%}
    {%- endfor -%}
    {{ return(found) }}
{% endmacro %}
