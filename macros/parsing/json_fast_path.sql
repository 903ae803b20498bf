{#
    parse_json_lines' fast path: a valid line, which is nearly every line of a real feed, is read by one Spark parse
    (from_json into a map of each key's text) and a few byte comparisons that prove each typed value is exactly what
    was written; only the lines that fail the proof take the exact path (parse_json_lines.sql, json_field_rules.sql),
    which finds their reasons. The proof only ever sends a valid line to the exact path too, never an invalid one
    through: a line passes when every test below holds, and each test's reasoning says why the exact path would then
    find no problem and the same values. docs/benchmarks/pipeline_volume.md measures it against Spark's own JSON reader.

    A line passes the shape test when it starts with '{' and ends with '}' with no other brace in it, no JSON
    whitespace right after a '"', no byte that is not UTF-8, and at most max_line_bytes:
    - from_json reads the object from the first '{' and ignores what follows it; the only '}' is the last byte, so
      nothing follows: the line is one JSON object (not_json, truncated, not_object cannot apply), and its values
      are no objects.
    - a key is a string followed by ':'; with no whitespace after a '"', every key is written '"k":', and a string
      that holds '":' only adds to the count: the count of '":' is at least the number of keys. When it equals the
      number of distinct keys (the map's size), no key repeats (duplicate_field cannot apply).
    - the map holds each value's text: a string's value, any other value as Spark writes it again (an integer as
      its digits, other numbers through a double, true, false, an array); a key with JSON null maps to NULL.
    - '"k":' occurs once and only as that key (no brace but the outer ones, no repeated key; inside a string a '"'
      is escaped), so a marker such as '"k":"' + text + '"' found in the line proves how the value was written.
#}

{#- The fast path's CTEs after parse_json_lines__lines; the last, parse_json_lines__fast, adds parse_json_lines__fast (true for a line it read) and each field's value. -#}
{% macro _json_fast_stages(specs, max_line_bytes, options, line) %}
    parse_json_lines__fast_objects as (
        select
            *,
            case when {{ window_tvf._json_fast_shape(line, max_line_bytes) }}
                then from_json({{ line }}, 'map<string,string>', {{ options }})
            end as parse_json_lines__map
        from parse_json_lines__lines
    ),

    parse_json_lines__fast_texts as (
        select
            *
            {%- for spec in specs %},
            {#- element_at, not map[...]: Spark would repeat a lookup by [] (cheap to it) wherever the text is used -#}
            element_at(parse_json_lines__map, {{ window_tvf._sql_literal(spec.name) }}) as parse_json_lines__fast_text_{{ spec.index }}
            {%- endfor %}
        from parse_json_lines__fast_objects
    ),

    -- Whether each key is there (also with JSON null), and each value read once (the tests below use it again).
    parse_json_lines__fast_reads as (
        select
            *
            {%- for spec in specs %},
            parse_json_lines__fast_text_{{ spec.index }} is not null
                or map_contains_key(parse_json_lines__map, {{ window_tvf._sql_literal(spec.name) }}) as parse_json_lines__fast_has_{{ spec.index }},
            {{ window_tvf._json_fast_read(spec) }} as parse_json_lines__fast_read_{{ spec.index }}
            {%- endfor %}
        from parse_json_lines__fast_texts
    ),

    parse_json_lines__fast_values as (
        select
            *,
            -- No key twice: every key is a field's (the common case: the count alone), or no key repeats.
            size(parse_json_lines__map) = {% for spec in specs %}{{ ' + ' if not loop.first }}cast(parse_json_lines__fast_has_{{ spec.index }} as int){% endfor %}
                or size(array_distinct(map_keys(parse_json_lines__map))) = size(parse_json_lines__map) as parse_json_lines__fast_keys_once
            {%- for spec in specs %},
            {%- set field = window_tvf._json_fast_field(spec, line) %}
            {{ field.value }} as parse_json_lines__fast_value_{{ spec.index }},
            {{ field.ok }} as parse_json_lines__fast_ok_{{ spec.index }}
            {%- endfor %}
        from parse_json_lines__fast_reads
    ),

    parse_json_lines__fast as (
        select
            *,
            coalesce(
                parse_json_lines__map is not null
                and parse_json_lines__fast_keys_once
                {%- for spec in specs %}
                and parse_json_lines__fast_ok_{{ spec.index }}
                {%- endfor %},
                false
            ) as parse_json_lines__fast
        from parse_json_lines__fast_values
    )
{%- endmacro %}

{#-
    The line's shape (see the top of this file), cheapest tests first: all of them compare bytes, except the UTF-8
    test, which is the exact path's own not_utf8 test.
-#}
{% macro _json_fast_shape(line, max_line_bytes) %}
    {%- set tests = [
        "startswith(" ~ line ~ ", '{')",
        "endswith(" ~ line ~ ", '}')",
        "size(split(" ~ line ~ ", '}', 3)) = 2",
    ] -%}
    {%- if max_line_bytes is not none -%}
        {%- do tests.append("octet_length(" ~ line ~ ") <= " ~ max_line_bytes) -%}
    {%- endif -%}
    {%- do tests.append("cast(" ~ line ~ " as binary) = encode(" ~ line ~ ", 'UTF-8')") -%}
    {{ return(tests | join(' and ')) }}
{% endmacro %}

{#- A field's text read once into what its tests need: a number's value, a time's (NULL when it is no such text). -#}
{% macro _json_fast_read(spec) %}
    {%- set text = 'parse_json_lines__fast_text_' ~ spec.index -%}
    {%- if spec.family == 'integer' -%}
        {{ return('try_cast(' ~ text ~ ' as bigint)') }}
    {%- elif spec.family in ('date', 'timestamp', 'timestamp_ntz') -%}
        {#- the exact path's test without its date test: a time Spark reads has a date on the calendar -#}
        {{ return("case when " ~ text ~ " rlike " ~ window_tvf._json_time_pattern(spec) ~ " then try_cast("
            ~ window_tvf._json_time_text(spec, text) ~ " as " ~ spec.type ~ ") end") }}
    {%- endif -%}
    {{ return('cast(null as boolean)') }}
{% endmacro %}

{#-
    A field on the fast path: `value`, its typed value (NULL for an absent key or JSON null), and `ok`, true when
    the exact path would find no problem with it and the same value. A value's test per type:
    - string: the text is a string's value unless it could be another value written again (it starts with a digit,
      '-', '[', '{' or '"', or is true or false: then the marker '"k":"' + text + '"' must be in the line), then
      the exact path's length and pattern tests;
    - boolean: true or false, and the marker '"k":' + text (not a string "true");
    - integer: the text is an integer's digits exactly (as Spark writes a JSON integer again), the marker '"k":' +
      text (a number, not a string; with numbers_as_text a string holding the digits too), and the type's range;
    - decimal: the text is a plain decimal with at most p-s digits before the point and s after it, and the marker
      '"k":' + text followed by ',' or '}' (the number as written, not a shorter form of it through a double;
      with numbers_as_text also the string);
    - date and time: the exact path's own test of the text, whose form no other value written again has.
    Then min and max. An absent key passes when the field is not required, JSON null when it is nullable.
-#}
{% macro _json_fast_field(spec, line) %}
    {%- set text = 'parse_json_lines__fast_text_' ~ spec.index -%}
    {%- set key = '"' ~ spec.name.replace('\\', '\\\\').replace('"', '\\"') ~ '"' -%}
    {%- set as_number = window_tvf._json_fast_marker(key, text, '', line) -%}
    {%- set as_string = window_tvf._json_fast_marker(key, text, '"', line) -%}
    {%- if spec.family == 'string' -%}
        {%- set value = text -%}
        {%- set tests = ['(not (left(' ~ text ~ ", 1) in ('-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9', '[', '{', '\"') or "
            ~ text ~ " in ('true', 'false')) or " ~ as_string ~ ')'] -%}
        {%- if spec.length -%}
            {%- do tests.append('char_length(' ~ text ~ ') <= ' ~ spec.length) -%}
        {%- endif -%}
        {%- if spec.pattern is not none -%}
            {%- do tests.append(text ~ ' rlike ' ~ window_tvf._sql_literal('^(?:' ~ spec.pattern ~ ')\\z')) -%}
        {%- endif -%}
    {%- elif spec.family == 'boolean' -%}
        {%- set value = '(' ~ text ~ " = 'true')" -%}
        {%- set tests = [text ~ " in ('true', 'false')", as_number] -%}
    {%- elif spec.family == 'integer' -%}
        {%- set whole = 'parse_json_lines__fast_read_' ~ spec.index -%}
        {%- set value = 'cast(' ~ whole ~ ' as ' ~ spec.type ~ ')' -%}
        {%- set tests = ['cast(' ~ whole ~ ' as string) = ' ~ text,
            '(' ~ as_number ~ (' or ' ~ as_string if spec.numbers_as_text else '') ~ ')'] -%}
        {%- if spec.type != 'bigint' -%}
            {%- do tests.append(whole ~ ' between ' ~ spec.low ~ ' and ' ~ spec.high) -%}
        {%- endif -%}
    {%- elif spec.family == 'decimal' -%}
        {%- set value = 'try_cast(' ~ text ~ ' as ' ~ spec.type ~ ')' -%}
        {%- set whole_digits = spec.precision - spec.scale -%}
        {%- set pattern = '^-?' ~ ('(?:0|[1-9][0-9]{0,' ~ (whole_digits - 1) ~ '})' if whole_digits else '0')
            ~ ('(?:[.][0-9]{1,' ~ spec.scale ~ '})?' if spec.scale else '') ~ '$' -%}
        {%- set written = [] -%}
        {%- for separator in [':', ': '] -%}{%- for after in [',', '}'] -%}
            {%- do written.append('contains(' ~ line ~ ', concat(' ~ window_tvf._sql_literal(key ~ separator) ~ ', '
                ~ text ~ ', ' ~ window_tvf._sql_literal(after) ~ '))') -%}
        {%- endfor -%}{%- endfor -%}
        {%- set tests = [text ~ ' rlike ' ~ window_tvf._sql_literal(pattern),
            '(' ~ (written | join(' or ')) ~ (' or ' ~ as_string if spec.numbers_as_text else '') ~ ')'] -%}
    {%- else -%}
        {%- set value = 'parse_json_lines__fast_read_' ~ spec.index -%}
        {%- set tests = [value ~ ' is not null'] -%}
        {%- if spec.family != 'date' -%}
            {%- do tests.append(value ~ ' between ' ~ window_tvf._json_time_range(spec)) -%}
        {%- endif -%}
    {%- endif -%}
    {%- for bound, comparison in [('min', '>='), ('max', '<=')] if spec.get(bound) is not none -%}
        {%- do tests.append(value ~ ' ' ~ comparison ~ ' ' ~ spec[bound]) -%}
    {%- endfor -%}
    {%- set ok = 'case when ' ~ text ~ ' is not null then ' ~ (tests | join(' and ')) ~ ' when parse_json_lines__fast_has_'
        ~ spec.index ~ ' then ' ~ ('true' if spec.nullable else 'false') ~ ' else ' ~ ('false' if spec.required else 'true') ~ ' end' -%}
    {{ return({'value': 'case when ' ~ text ~ ' is not null then ' ~ value ~ ' end', 'ok': ok}) }}
{% endmacro %}

{#- The line holds the key, ':' (or ': ') and the text, enclosed in `quote` ('"' for a string, '' for another value). -#}
{% macro _json_fast_marker(key, text, quote, line) %}
    {%- set markers = [] -%}
    {%- for separator in [':', ': '] -%}
        {%- do markers.append('contains(' ~ line ~ ', concat(' ~ window_tvf._sql_literal(key ~ separator ~ quote) ~ ', '
            ~ text ~ (', ' ~ window_tvf._sql_literal(quote) if quote else '') ~ '))') -%}
    {%- endfor -%}
    {{ return('(' ~ (markers | join(' or ')) ~ ')') }}
{% endmacro %}
