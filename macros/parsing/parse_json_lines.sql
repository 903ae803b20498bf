{#
    parse_json_lines(relation, fields, line_column='line', max_line_bytes=1048576, reason_column='reason'): one
    output row per input row, whatever the line holds: every column of `relation`, then one typed column per field,
    then `reason` (NULL for a valid line, else a code such as 'not_json' or 'bad_type:quantity') and
    `reason_message` (every problem of the line, each naming the field and the value as it was written). A line
    with a problem keeps NULL in every field column: no value is ever altered to make it fit (a quantity of 2.5 or
    "three" is never 2 or NULL in an int column), and no line is dropped.

    The JSON is parsed by Spark (from_json, json_object_keys: Jackson, strict: no single quotes, no NaN). Spark
    returns a number's text through a double, so the text of each top-level value is taken from the line itself
    (a scan of its tokens, parse_json_lines__pairs) and a value fits its column by the rules of fillna and replace
    (literals.sql, _typed_literal): the column holds it exactly. README, "Parsing JSON lines: a reason for every
    rejected line".
#}
{% macro parse_json_lines(relation, fields, line_column='line', max_line_bytes=1048576, reason_column='reason') %}
    {{ return(adapter.dispatch('parse_json_lines', 'window_tvf')(relation, fields, line_column, max_line_bytes, reason_column)) }}
{% endmacro %}

{% macro default__parse_json_lines(relation, fields, line_column='line', max_line_bytes=1048576, reason_column='reason') %}
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
    with parse_json_lines__lines as (
        select
            struct(source_rows.*) as parse_json_lines__source,
            source_rows.{{ line }} as parse_json_lines__line,
            {{ window_tvf._json_line_problem('source_rows.' ~ line, max_line_bytes) }} as parse_json_lines__line_problem
        from {{ relation }} as source_rows
    ),

    -- Spark's verdict on the line, for lines that passed the checks above: wrapped in an array with a sentinel after
    -- it, a line is one JSON value exactly when the array holds that value and then the sentinel (from_json ignores
    -- text after the value it parsed, which the sentinel would then not follow).
    parse_json_lines__parsed as (
        select
            *,
            case when parse_json_lines__line_problem is null then from_json(
                concat('[', parse_json_lines__line, ',"parse_json_lines:end"]'), 'array<string>', {{ options }}
            ) end as parse_json_lines__wrapped,
            case when parse_json_lines__line_problem is null then json_object_keys(parse_json_lines__line) end
                as parse_json_lines__keys
        from parse_json_lines__lines
    ),

    parse_json_lines__objects as (
        select
            *,
            coalesce(parse_json_lines__line_problem, {{ window_tvf._json_value_problem() }}) as parse_json_lines__object_problem
        from parse_json_lines__parsed
    ),

    -- Each top-level key (unescaped by Spark) with the text of its value as written, and the string values unescaped.
    parse_json_lines__pairs as (
        select
            *,
            case when parse_json_lines__object_problem is null then zip_with(
                parse_json_lines__keys,
                {{ window_tvf._json_top_level_values('parse_json_lines__line') }},
                (json_key, json_text) -> named_struct('key', json_key, 'raw', json_text)
            ) end as parse_json_lines__pairs,
            case when parse_json_lines__object_problem is null then from_json(
                parse_json_lines__line, {{ window_tvf._sql_literal(window_tvf._json_text_schema(specs)) }}, {{ options }}
            ) end as parse_json_lines__texts
        from parse_json_lines__objects
    ),

    {{ window_tvf._json_field_stages(specs) }}

    {{ window_tvf._json_result(specs, reason) }}
{%- endmacro %}


{#-
    The output: the relation's columns, each field's value where the line has no problem, and the first problem's
    code with every problem's message (parse_json_lines__problems: the line's, then each field's in order).
-#}
{% macro _json_result(specs, reason) %}
    select
        parse_json_lines__source.*,
        {%- for spec in specs %}
        case when size(parse_json_lines__reasons) = 0 then parse_json_lines__candidate_{{ loop.index }} end as {{ spec.column }},
        {%- endfor %}
        case when size(parse_json_lines__reasons) > 0 then parse_json_lines__reasons[0].code end as {{ reason }},
        case when size(parse_json_lines__reasons) > 0
            then array_join(transform(parse_json_lines__reasons, problem -> problem.message), '; ')
        end as {{ window_tvf._json_message_column(reason) }}
    from (
        select
            *,
            filter(
                array(
                    parse_json_lines__object_problem
                    {%- for spec in specs %},
                    parse_json_lines__problem_{{ loop.index }}
                    {%- endfor %}
                ),
                problem -> problem is not null
            ) as parse_json_lines__reasons
        from parse_json_lines__problems
    ) as parse_json_lines__checked
{%- endmacro %}

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
    What is wrong with a line that is not one JSON object, or NULL. A line Spark cannot parse is `truncated` when it
    starts an object and ends inside it (an unclosed string, or more brackets opened than closed outside strings:
    a partial write), else `not_json`; a JSON value that is not an object is `not_object`.
-#}
{% macro _json_value_problem() %}
    {%- set line = 'parse_json_lines__line' -%}
    {%- set wrapped = 'parse_json_lines__wrapped' -%}
    {%- set outside_strings = "regexp_replace(" ~ line ~ ", '" ~ window_tvf._json_string_pattern() ~ "', '')" -%}
    case
        when not case when size({{ wrapped }}) = 2 then {{ wrapped }}[1] = 'parse_json_lines:end' else false end then
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
        when parse_json_lines__keys is null
            then {{ window_tvf._json_problem('not_object', "concat('not_object: the line is ', "
                ~ window_tvf._json_kind_phrase("regexp_extract(" ~ line ~ ", '^[ \\\\t\\\\r\\\\n]*(.)', 1)") ~ ", ', not an object: ', "
                ~ window_tvf._json_excerpt(line) ~ ")") }}
    end
{%- endmacro %}

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
    The text of each top-level value of a JSON object line, in order, as written: the line's tokens (strings,
    punctuation, and literals: numbers, true, false, null), scanned once with the depth of nesting; the token after
    a ':' at depth 1 starts a value ('{' or '[' for an object or array). Runs on lines Spark parsed as one object,
    so the tokens are well formed; json_object_keys gives the keys in the same order.
-#}
{% macro _json_top_level_values(line) %}
    {%- set tokens = "regexp_extract_all(" ~ line ~ ", '" ~ window_tvf._json_string_pattern()
        ~ "|[{}\\\\[\\\\],:]|[^\\\\s{}\\\\[\\\\],:\"]++', 0)" -%}
    aggregate(
                    {{ tokens }},
                    named_struct('depth', 0, 'after_colon', false, 'values', cast(array() as array<string>)),
                    (scan, token) -> named_struct(
                        'depth', scan.depth + case when token in ('{', '[') then 1 when token in ('}', ']') then -1 else 0 end,
                        'after_colon', scan.depth = 1 and token = ':',
                        'values', case when scan.after_colon then concat(scan.values, array(token)) else scan.values end
                    )
                ).values
{%- endmacro %}

{#- from_json's schema reading every field as a string: a JSON string's value unescaped. -#}
{% macro _json_text_schema(specs) %}
    {%- set columns = [] -%}
    {%- for spec in specs -%}{%- do columns.append('`' ~ spec.name.replace('`', '``') ~ '` string') -%}{%- endfor -%}
    {{ return(columns | join(', ')) }}
{% endmacro %}
