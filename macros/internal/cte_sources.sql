{#
    What a relation given by name is, or is built on, for what a model reads from the warehouse when it compiles. A
    name is a table's or a CTE's of the calling model: the warehouse knows a table but not a CTE.
      - A schema-qualified name is looked up in the warehouse, and then taken as that relation by every macro
        (_relation, arguments.sql).
      - A CTE's shuffle estimate (shuffle.sql) is read on the relation its definition in the model's own SQL
        selects from: a ref(), a source() or a schema-qualified table, through other CTEs of the model
        (_built_on). Only the plan follows from that, never a result.
      - A CTE's column types (types.sql) are its own: a `describe query` of the model's WITH clause up to it
        (_cte_types), when every relation that clause reads exists.
    A name that cannot be followed is left unknown, as it was before any of this.
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

{#- The text of the calling model's CTE `name` (between the parentheses of `name as (...)`), or none. -#}
{% macro _cte_body(name) %}
    {%- set found = window_tvf._cte_definition(name) -%}
    {{ return(none if found is none else found.body) }}
{% endmacro %}

{#-
    Where the calling model's SQL (as written, Jinja included) defines the CTE `name`: {body: the text between the
    parentheses of `name as (...)`, prefix: the text from its WITH clause's `with` to the closing parenthesis, when
    that WITH clause is the statement's own (not in parentheses)}, or none: no such CTE, or no model (a macro run on
    its own), or a name of the package's own CTEs (window_tvf__...), which a macro writes and hands to another: the
    analyst's text does not define it (a CTE of theirs named so is not the one meant).
-#}
{% macro _cte_definition(name) %}
    {#- Read once per name and model (kept in the model's context): the estimate, the columns and the aggregate
        types all ask, and the scan goes over the model's whole SQL a character at a time. -#}
    {%- set cache = context.get('window_tvf__cte_definitions', {}) -%}
    {%- if name not in cache -%}
        {%- do cache.update({name: window_tvf._scanned_cte_definition(name)}) -%}
        {%- do context.update({'window_tvf__cte_definitions': cache}) -%}
    {%- endif -%}
    {{ return(cache[name]) }}
{% endmacro %}

{#- _cte_definition, scanned from the model's SQL. -#}
{% macro _scanned_cte_definition(name) %}
    {%- set raw = model.get('raw_code') if model is mapping else none -%}
    {%- if not raw or name.startswith('window_tvf__') -%}{{ return(none) }}{%- endif -%}
    {#- Comments (Jinja's and SQL's) become spaces of the same length: neither a `with` nor a parenthesis in them
        counts, and the prefix renders without them. -#}
    {%- set blanked = namespace(text='', at=0) -%}
    {%- for comment in modules.re.finditer('(?s)\\{#.*?#\\}|/\\*.*?\\*/|--[^\\n]*', raw) -%}
        {%- set blanked.text = blanked.text ~ raw[blanked.at:comment.start()]
            ~ modules.re.sub('[^\\n]', ' ', comment.group(0)) -%}
        {%- set blanked.at = comment.end() -%}
    {%- endfor -%}
    {%- set raw = blanked.text ~ raw[blanked.at:] -%}
    {%- set start = modules.re.search('(?i)(?:\\bwith|,)\\s*`?' ~ modules.re.escape(name) ~ '`?\\s+as\\s*\\(', raw) -%}
    {%- if not start -%}{{ return(none) }}{%- endif -%}
    {#- One pass over the text: the depth of parentheses (quotes skipped) where the statement's `with` is, where the
        definition starts, and where its parenthesis closes. -#}
    {%- set scan = namespace(depth=0, quote=none, end=none, with_at=none, start_depth=none) -%}
    {%- for character in raw if scan.end is none -%}
        {%- set at = loop.index0 -%}
        {%- if at == start.start() -%}{%- set scan.start_depth = scan.depth -%}{%- endif -%}
        {%- if scan.quote -%}
            {%- if character == scan.quote -%}{%- set scan.quote = none -%}{%- endif -%}
        {%- elif character in ("'", '"', '`') -%}
            {%- set scan.quote = character -%}
        {%- elif character == '(' -%}
            {%- set scan.depth = scan.depth + 1 -%}
        {%- elif character == ')' -%}
            {%- set scan.depth = scan.depth - 1 -%}
            {%- if at >= start.end() and scan.depth == scan.start_depth -%}{%- set scan.end = at -%}{%- endif -%}
        {%- elif scan.depth == 0 and scan.with_at is none and at < start.start() + 1
            and raw[at:at + 4] | lower == 'with' and not modules.re.match('\\w', raw[at - 1:at] if at else ' ')
            and not modules.re.match('\\w', raw[at + 4:at + 5]) -%}
            {%- set scan.with_at = at -%}
        {%- endif -%}
    {%- endfor -%}
    {%- if scan.end is none -%}{{ return(none) }}{%- endif -%}
    {{ return({'body': raw[start.end():scan.end],
        'prefix': raw[scan.with_at:scan.end + 1] if scan.with_at is not none and scan.start_depth == 0 else none}) }}
{% endmacro %}

{#-
    {call: its type} for aggregate calls such as 'sum(price)' over the calling model's CTE `name`, read when the
    model compiles; none when the CTE cannot be described (_described_cte).
-#}
{% macro _cte_types(name, calls) %}
    {%- set select_list = [] -%}
    {%- for call in calls -%}{%- do select_list.append(call ~ ' as window_tvf__type_' ~ loop.index) -%}{%- endfor -%}
    {%- set rows = window_tvf._described_cte(name, select_list | join(', ')) -%}
    {%- if rows is none -%}{{ return(none) }}{%- endif -%}
    {%- set types = {} -%}
    {%- for row in rows -%}{%- do types.update({calls[loop.index0]: row[1] | lower}) -%}{%- endfor -%}
    {{ return(types) }}
{% endmacro %}

{#-
    The columns of the calling model's CTE `name` as [(name, data type)], as the warehouse would give a table's
    (_known_columns, arguments.sql); none when the CTE cannot be described (_described_cte).
-#}
{% macro _cte_columns(name) %}
    {%- set rows = window_tvf._described_cte(name, '*') -%}
    {%- if rows is none -%}{{ return(none) }}{%- endif -%}
    {%- set columns = [] -%}
    {%- for row in rows if row[0] and not (row[0] | string).startswith('#') -%}
        {%- do columns.append((row[0] | string, row[1] | string)) -%}
    {%- endfor -%}
    {{ return(columns) }}
{% endmacro %}

{#-
    The rows of `describe query <the model's WITH clause up to the CTE name> select <select_list> from name`: the
    CTE's own types, read when the model compiles (analysis only: nothing runs). None when that cannot be done
    safely: no such CTE in the statement's own WITH clause, Jinja in the clause other than ref() and source(), or
    a relation the clause reads that the warehouse does not have (yet), so that describing it would fail the model.
-#}
{% macro _described_cte(name, select_list) %}
    {%- if not execute -%}{{ return(none) }}{%- endif -%}
    {%- set found = window_tvf._cte_definition(window_tvf._unquoted(name | trim)) -%}
    {%- if found is none or found.prefix is none -%}{{ return(none) }}{%- endif -%}
    {#- Rendering the clause runs its Jinja again: only ref() and source() calls, which have no effects (a macro,
        such as a window macro in a microbatch batch, keeps state in the model's context). -#}
    {%- for jinja in modules.re.findall('(?s)\\{\\{.*?\\}\\}|\\{%.*?%\\}', found.prefix) -%}
        {%- if not modules.re.match('(?s)^\\{\\{-?\\s*(ref|source)\\s*\\([^()]*\\)\\s*-?\\}\\}$', jinja) -%}
            {{ return(none) }}
        {%- endif -%}
    {%- endfor -%}
    {%- for read in window_tvf._read_relations(found.prefix) -%}
        {%- if read.relation is defined and not window_tvf._known_columns(read.relation) -%}
            {{ return(none) }}
        {%- elif read.name is defined and not modules.re.search('(?i)(?:\\bwith|,)\\s*`?' ~ modules.re.escape(read.name)
            ~ '`?\\s+as\\s*\\(', found.prefix) and window_tvf._warehouse_table(read.name) is none -%}
            {{ return(none) }}
        {%- endif -%}
    {%- endfor -%}
    {{ return(run_query('describe query ' ~ render(found.prefix) ~ ' select ' ~ select_list ~ ' from ' ~ name).rows) }}
{% endmacro %}

{#-
    What `body` (a CTE's SQL as written) reads, in order: {relation} for each ref() and source() call that the
    model declares (dbt knows the model depends on it), {name} for each other name after FROM or JOIN (another CTE,
    or a table); a table-valued function (`from range(10)`) reads nothing.
-#}
{% macro _read_relations(body) %}
    {%- set found = [] -%}
    {%- set pattern = "(?is)\\b(ref|source)\\s*\\(\\s*['\"]([^'\"]+)['\"]\\s*(?:,\\s*['\"]([^'\"]+)['\"]\\s*)?\\)"
        ~ "|\\b(?:from|join)\\s+(`?[A-Za-z_][A-Za-z0-9_]*`?(?:\\.`?[A-Za-z_][A-Za-z0-9_]*`?)?)(?![A-Za-z0-9_`.]|\\s*\\()" -%}
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
