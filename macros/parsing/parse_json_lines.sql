{#
    parse_json_lines(relation, fields, line_column='line', max_line_bytes=1048576, reason_column='reason'): one
    output row per input row, whatever the line holds: every column of `relation`, then one typed column per field,
    then `reason` (NULL for a valid line, else a code such as 'not_json' or 'bad_type:quantity') and
    `reason_message` (every problem of the line, each naming the field and the value as it was written). A line
    with a problem keeps NULL in every field column: no value is ever altered to make it fit (a quantity of 2.5 or
    "three" is never 2 or NULL in an int column), and no line is dropped.

    Two paths, one verdict. The fast path (json_fast_path.sql) reads a line with one Spark parse and proves with a
    few byte comparisons that each typed value is exactly what was written; nearly every valid line passes it. Every
    other line takes the exact path: the JSON is parsed by Spark (from_json, json_object_keys: Jackson, strict: no
    single quotes, no NaN); Spark returns a number's text through a double, so the text of each top-level value is
    taken from the line itself (a scan of its tokens, parse_json_lines__scan) and a value fits its column by the
    rules of fillna and replace (literals.sql, _typed_literal): the column holds it exactly. docs/landing_parser.md;
    its cost: docs/benchmarks/pipeline_volume.md.
#}
{% macro parse_json_lines(relation, fields, line_column='line', max_line_bytes=1048576, reason_column='reason') %}
    {{ return(adapter.dispatch('parse_json_lines', 'window_tvf')(relation, fields, line_column, max_line_bytes, reason_column)) }}
{% endmacro %}

{% macro default__parse_json_lines(relation, fields, line_column='line', max_line_bytes=1048576, reason_column='reason') %}
    {{ return(window_tvf._parse_json_lines(relation, fields, line_column, max_line_bytes, reason_column)) }}
{% endmacro %}

{#-
    parse_json_lines itself. For the tests and the benchmark: fast_path=false sends every line the exact path (the
    reference the fast path is compared with); path_column adds a column naming the path each line took.
-#}
{% macro _parse_json_lines(relation, fields, line_column='line', max_line_bytes=1048576, reason_column='reason', fast_path=true,
        path_column=none) %}
    {%- set name = 'parse_json_lines' -%}
    {%- set relation = window_tvf._relation(relation, name) -%}
    {%- set line = window_tvf._column_name(line_column, name, 'line_column') -%}
    {%- set reason = window_tvf._column_name(reason_column, name, 'reason_column') -%}
    {%- if max_line_bytes is not none -%}
        {%- do window_tvf._positive_integer(max_line_bytes, name, 'max_line_bytes') -%}
    {%- endif -%}
    {%- set specs = window_tvf._json_field_specs(fields) -%}
    {%- do window_tvf._json_output_columns_are_new(relation, line, specs, reason) -%}
    {%- set options = "map('allowSingleQuotes', 'false', 'allowNonNumericNumbers', 'false')" %}
    {%- call window_tvf._self_contained('parse_json_lines') %}
    with parse_json_lines__lines as (
        select
            struct(source_rows.*) as parse_json_lines__source
        from {{ relation }} as source_rows
    ),

    {% if fast_path -%}
    {{ window_tvf._json_fast_stages(specs, max_line_bytes, options, 'parse_json_lines__source.' ~ line) }},
    {%- endif %}

    -- The exact path, for the lines the fast path did not read: one expression, evaluated for those lines only.
    parse_json_lines__checked as (
        select
            *,
            case when not {{ 'parse_json_lines__fast' if fast_path else 'false' }} then
                {{ window_tvf._json_exact_path(specs, max_line_bytes, options, 'parse_json_lines__source.' ~ line) }}
            end as parse_json_lines__exact
        from {{ 'parse_json_lines__fast' if fast_path else 'parse_json_lines__lines' }}
    )

    select
        parse_json_lines__source.*,
        {%- for spec in specs %}
        case
            {%- if fast_path %}
            when parse_json_lines__fast then parse_json_lines__fast_value_{{ loop.index }}
            {%- endif %}
            when size(parse_json_lines__exact.reasons) = 0 then parse_json_lines__exact.value_{{ loop.index }}
        end as {{ spec.column }},
        {%- endfor %}
        case when size(parse_json_lines__exact.reasons) > 0 then parse_json_lines__exact.reasons[0].code end as {{ reason }},
        case when size(parse_json_lines__exact.reasons) > 0
            then array_join(transform(parse_json_lines__exact.reasons, problem -> problem.message), '; ')
        end as {{ window_tvf._json_message_column(reason) }}
        {%- if path_column %},
        case when parse_json_lines__exact is null then 'fast' else 'exact' end as {{ path_column }}
        {%- endif %}
    from parse_json_lines__checked
    {%- endcall %}
{%- endmacro %}

{#-
    The exact path of one line (`line`, a SQL expression): a struct of `reasons` (every problem, each a struct of
    code and message: the line's, then each field's in order; empty for a valid line) and value_1, value_2, ...
    (each field's typed value when the column holds it exactly). Its steps are nested lambdas, each binding one
    stage's values as a struct that the later stages read (transform(array(...), stage -> ...)[0]): one expression
    that Spark evaluates only for the lines that need it, where a chain of CTEs would be computed, and compiled
    into one huge method, for every line.
    - json_line: what is wrong with the line before its JSON is read;
    - json_parse: its keys, and Spark's verdict: wrapped in an array with a sentinel after it, a line is one JSON
      value when the array holds that value and then the sentinel (from_json ignores text after the value it
      parsed, which the sentinel would then not follow), and the line's tokens do not go on after its value
      closed (a line could end with the sentinel itself);
    - json_object: the line's problem, if it is no JSON object; else each top-level key (unescaped by Spark) with
      the text of its value as written, and the string values unescaped;
    then the fields' stages (json_field_rules.sql, _json_field_stages).
-#}
{% macro _json_exact_path(specs, max_line_bytes, options, line) %}
    {%- set wrapped = "from_json(concat('[', " ~ line ~ ", ',\"parse_json_lines:end\"]'), 'array<string>', " ~ options ~ ")" -%}
    {%- set fields = window_tvf._json_field_stages(specs, 'json_object.pairs', 'json_object.texts', 'json_object.problem') -%}
    {%- set one_object = "json_line.problem is null and json_parse.scan is not null and not json_parse.scan.trailing and json_parse.keys is not null" -%}
    {%- set stages = [
        {'name': 'json_line', 'columns': [('problem', window_tvf._json_line_problem(line, max_line_bytes))]},
        {'name': 'json_parse', 'columns': [
            ('keys', 'case when json_line.problem is null then json_object_keys(' ~ line ~ ') end'),
            ('scan', 'case when json_line.problem is null and ' ~ window_tvf._json_wrapped_one_value(wrapped) ~ ' then '
                ~ window_tvf._json_token_scan(line) ~ ' end')]},
        {'name': 'json_object', 'columns': [
            ('problem', 'coalesce(json_line.problem, ' ~ window_tvf._json_value_problem(line, 'json_parse.keys', 'json_parse.scan') ~ ')'),
            ('pairs', 'case when ' ~ one_object ~ ' then zip_with(json_parse.keys, json_parse.scan.values, '
                ~ "(json_key, json_text) -> named_struct('key', json_key, 'raw', json_text)) end"),
            ('texts', 'case when ' ~ one_object ~ ' then from_json(' ~ line ~ ', '
                ~ window_tvf._sql_literal(window_tvf._json_text_schema(specs)) ~ ', ' ~ options ~ ') end')]},
    ] + fields.stages -%}
    {%- set result = ["'reasons', filter(array(json_object.problem, " ~ (fields.problems | join(', ')) ~ "), problem -> problem is not null)"] -%}
    {%- for spec in specs -%}{%- do result.append("'value_" ~ spec.index ~ "', json_candidates.candidate_" ~ spec.index) -%}{%- endfor -%}
    {%- set nested = namespace(sql='named_struct(' ~ (result | join(', ')) ~ ')') -%}
    {%- for stage in stages | reverse -%}
        {%- set columns = [] -%}
        {%- for column, expression in stage.columns -%}{%- do columns.append("'" ~ column ~ "', " ~ expression) -%}{%- endfor -%}
        {%- set nested.sql = 'transform(array(named_struct(' ~ (columns | join(', ')) ~ ')), ' ~ stage.name ~ ' -> ' ~ nested.sql ~ ')[0]' -%}
    {%- endfor -%}
    {{ return(nested.sql) }}
{% endmacro %}


{#- The message column's name: the reason column's, with _message (reason_message). -#}
{% macro _json_message_column(reason) %}
    {%- set unquoted = window_tvf._unquoted(reason) ~ '_message' -%}
    {{ return('`' ~ unquoted.replace('`', '``') ~ '`') }}
{% endmacro %}

{#- The fields and the reason columns must not repeat a column of the relation (when its columns can be read). -#}
{% macro _json_output_columns_are_new(relation, line, specs, reason) %}
    {%- set columns = window_tvf._known_columns(relation) -%}
    {%- if columns and window_tvf._unquoted(line) | lower not in columns -%}
        {{ window_tvf._argument_error('parse_json_lines', 'line_column', line,
            "no such column in " ~ relation ~ "; its columns are: " ~ (columns.keys() | join(', '))) }}
    {%- endif -%}
    {%- set added = [] -%}
    {%- for spec in specs -%}{%- do added.append(['fields', spec.name]) -%}{%- endfor -%}
    {%- do added.append(['reason_column', window_tvf._unquoted(reason)]) -%}
    {%- do added.append(['reason_column', window_tvf._unquoted(reason) ~ '_message']) -%}
    {%- for argument, column in added if column | lower in columns -%}
        {{ window_tvf._argument_error('parse_json_lines', argument, column,
            relation ~ " already has a column named " ~ column ~ ", which the output would repeat; rename it first") }}
    {%- endfor -%}
{% endmacro %}


{#- A problem as the struct every check returns: the reason code and its message (a SQL string expression). -#}
{% macro _json_problem(code, message_sql) %}
    {{- return("named_struct('code', " ~ window_tvf._sql_literal(code) ~ ", 'message', " ~ message_sql ~ ")") -}}
{% endmacro %}

{#- At most `characters` characters of a text, with '...' when it was longer, for messages. -#}
{% macro _json_excerpt(text_sql, characters=100) %}
    {{- return("case when char_length(" ~ text_sql ~ ") > " ~ characters ~ " then concat(left(" ~ text_sql ~ ", "
        ~ characters ~ "), '...') else " ~ text_sql ~ " end") -}}
{% endmacro %}

{#-
    What is wrong with a line before its JSON is read, or NULL: bytes that are not UTF-8 (Spark would read them as
    U+FFFD), a line longer than max_line_bytes, no JSON at all, a byte order mark.
-#}
{% macro _json_line_problem(line, max_line_bytes) %}
    {%- set excerpt = window_tvf._json_excerpt(line) -%}
    case
        when {{ line }} is null or {{ line }} rlike '^[ \\t\\r\\n]*$'
            then {{ window_tvf._json_problem('empty_line', "'empty_line: the line holds no JSON (it is empty or only whitespace)'") }}
        when cast({{ line }} as binary) != encode({{ line }}, 'UTF-8')
            then {{ window_tvf._json_problem('not_utf8',
                "concat('not_utf8: the line is not valid UTF-8 (its bad bytes read as U+FFFD): ', " ~ excerpt ~ ")") }}
        {%- if max_line_bytes is not none %}
        when octet_length({{ line }}) > {{ max_line_bytes }}
            then {{ window_tvf._json_problem('line_too_long', "concat('line_too_long: ', octet_length(" ~ line
                ~ "), ' bytes, more than max_line_bytes = " ~ max_line_bytes ~ ": ', " ~ excerpt ~ ")") }}
        {%- endif %}
        when left({{ line }}, 1) = '\uFEFF'
            then {{ window_tvf._json_problem('bom',
                "concat('bom: the line starts with a byte order mark (U+FEFF), which is not JSON: ', " ~ excerpt ~ ")") }}
    end
{%- endmacro %}

{#-
    What is wrong with a line that is not one JSON object, or NULL. A line Spark cannot parse as one value is
    `truncated` when it starts an object and ends inside it (an unclosed string, or more brackets opened than closed
    outside strings: a partial write), else `not_json`; a JSON value that is not an object is `not_object`.
-#}
{% macro _json_value_problem(line, keys, scan) %}
    {%- set outside_strings = "regexp_replace(" ~ line ~ ", '" ~ window_tvf._json_string_pattern() ~ "', '')" -%}
    case
        when {{ scan }} is null or {{ scan }}.trailing then
            case
                when {{ line }} rlike '^[ \\t\\r\\n]*[{]' and (
                    {{ outside_strings }} like '%"%'
                    or length(regexp_replace({{ outside_strings }}, '[^{\\[]', ''))
                        > length(regexp_replace({{ outside_strings }}, '[^}\\]]', ''))
                ) then {{ window_tvf._json_problem('truncated', "concat('truncated: the line ends inside its JSON object "
                    ~ "(an unclosed string, object or array: a partial write?): ', case when char_length(" ~ line
                    ~ ") > 100 then concat('...', right(" ~ line ~ ", 100)) else " ~ line ~ " end)") }}
                else {{ window_tvf._json_problem('not_json', "concat('not_json: the line is not one JSON value "
                    ~ "(a syntax error, or text after the value): ', " ~ window_tvf._json_excerpt(line) ~ ")") }}
            end
        when {{ keys }} is null
            then {{ window_tvf._json_problem('not_object', "concat('not_object: the line is ', "
                ~ window_tvf._json_kind_phrase("regexp_extract(" ~ line ~ ", '^[ \\\\t\\\\r\\\\n]*(.)', 1)") ~ ", ', not an object: ', "
                ~ window_tvf._json_excerpt(line) ~ ")") }}
    end
{%- endmacro %}

{#- Spark parsed the line, wrapped in an array before a sentinel, as one value and then the sentinel. -#}
{% macro _json_wrapped_one_value(wrapped) %}
    {{- return("case when size(" ~ wrapped ~ ") = 2 then " ~ wrapped ~ "[1] = 'parse_json_lines:end' else false end") -}}
{% endmacro %}

{#- 'a JSON array', 'a JSON string', ... for the first character of a JSON value (a SQL expression). -#}
{% macro _json_kind_phrase(first_character) %}
    {{- return("case " ~ first_character ~ " when '[' then 'a JSON array' when '\"' then 'a JSON string' when 't' then "
        ~ "'JSON true' when 'f' then 'JSON false' when 'n' then 'JSON null' else 'a JSON number' end") -}}
{% endmacro %}

{#- A complete JSON string token (Java regex as a SQL literal's contents; possessive, so long strings never recurse). -#}
{% macro _json_string_pattern() %}
    {{- return('"[^"\\\\\\\\]*+(?:\\\\\\\\.[^"\\\\\\\\]*+)*+"') -}}
{% endmacro %}

{#-
    The line's tokens (strings, punctuation, and literals: numbers, true, false, null), scanned once with the depth
    of nesting: `values`, the text of each top-level value of an object line, in order, as written (the token after
    a ':' at depth 1 starts a value: '{' or '[' for an object or array); `trailing`, a token after the first value
    closed. Runs on lines Spark parsed as one value and the sentinel, so the tokens are well formed;
    json_object_keys gives the keys in the same order.
-#}
{% macro _json_token_scan(line) %}
    {%- set tokens = "regexp_extract_all(" ~ line ~ ", '" ~ window_tvf._json_string_pattern()
        ~ "|[{}\\\\[\\\\],:]|[^\\\\s{}\\\\[\\\\],:\"]++', 0)" -%}
    aggregate(
                {{ tokens }},
                named_struct('depth', 0, 'after_colon', false, 'values', cast(array() as array<string>), 'closed', false, 'trailing', false),
                (scan, token) -> named_struct(
                    'depth', scan.depth + case when token in ('{', '[') then 1 when token in ('}', ']') then -1 else 0 end,
                    'after_colon', scan.depth = 1 and token = ':',
                    'values', case when scan.after_colon then concat(scan.values, array(token)) else scan.values end,
                    'closed', scan.closed or scan.depth + case when token in ('{', '[') then 1 when token in ('}', ']') then -1 else 0 end = 0,
                    'trailing', scan.trailing or scan.closed
                )
            )
{%- endmacro %}

{#- from_json's schema reading every field as a string: a JSON string's value unescaped. -#}
{% macro _json_text_schema(specs) %}
    {%- set columns = [] -%}
    {%- for spec in specs -%}{%- do columns.append('`' ~ spec.name.replace('`', '``') ~ '` string') -%}{%- endfor -%}
    {{ return(columns | join(', ')) }}
{% endmacro %}
