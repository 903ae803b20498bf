{#
    parse_json_lines' fields: what each may be declared as (_json_field_specs, checked at compile time) and the SQL
    that reads its value from a line and says what is wrong with it (_json_field_stages). The rule is fillna's and
    replace's (literals.sql): a JSON value fits a column when the column holds it exactly.
#}

{#-
    The fields as a list of dicts: name, column (quoted), type, family (string, boolean, integer, decimal, date,
    timestamp, timestamp_ntz), the options (required: the key must be there, default true; nullable: JSON null is
    NULL, default false; key: a NULL or missing value is `null_key`; min/max: inclusive bounds, SQL literals of the
    type; pattern: a Java regex the whole string must match; numbers_as_text: a JSON string holding a JSON number
    is read as that number; require_zone: a time must carry its zone), and what the family needs (integer bounds,
    decimal precision and scale, varchar length).
-#}
{% macro _json_field_specs(fields) %}
    {%- set example = "expected a {field: type} dict, each type a string or a dict of options, e.g. {'event_id': "
        ~ "{'type': 'string', 'key': true}, 'quantity': {'type': 'int', 'min': 1}}" -%}
    {%- if fields is not mapping or (fields | length) == 0 -%}
        {{ window_tvf._argument_error('parse_json_lines', 'fields', fields, example) }}
    {%- endif -%}
    {%- set known_options = ['type', 'required', 'nullable', 'key', 'min', 'max', 'pattern', 'numbers_as_text', 'require_zone'] -%}
    {%- set specs = [] -%}
    {%- for name, declared in fields.items() -%}
        {%- set options = {'type': declared} if declared is string else declared -%}
        {%- if name is not string or not name or options is not mapping or options.get('type') is not string -%}
            {{ window_tvf._argument_error('parse_json_lines', 'fields', {name: declared}, example) }}
        {%- endif -%}
        {%- for option in options if option not in known_options -%}
            {{ window_tvf._argument_error('parse_json_lines', 'fields', {name: declared}, "unknown option " ~ option
                ~ "; a field's options are " ~ known_options | join(', ')) }}
        {%- endfor -%}
        {%- set spec = window_tvf._json_type_spec(name, declared, options.type | lower | trim) -%}
        {%- do spec.update({'index': loop.index}) -%}
        {%- for option, default in [('required', true), ('nullable', false), ('key', false), ('numbers_as_text', false), ('require_zone', false)] -%}
            {%- set value = options.get(option, default) -%}
            {%- if value is not sameas true and value is not sameas false -%}
                {{ window_tvf._argument_error('parse_json_lines', 'fields', {name: declared}, option ~ " must be true or false") }}
            {%- endif -%}
            {%- do spec.update({option: value}) -%}
        {%- endfor -%}
        {%- do window_tvf._json_check_options(spec, options, declared) -%}
        {%- do specs.append(spec) -%}
    {%- endfor -%}
    {{ return(specs) }}
{% endmacro %}

{#- A field's name, column and type family, with what the family needs; an unsupported type is an error. -#}
{% macro _json_type_spec(name, declared, data_type) %}
    {%- set bits = {'tinyint': 7, 'smallint': 15, 'int': 31, 'integer': 31, 'bigint': 63} -%}
    {%- set decimal = modules.re.match('^(?:decimal|dec|numeric)(?:\((\d+)(?:,\s*(\d+))?\))?$', data_type) -%}
    {%- set varchar = modules.re.match('^varchar\((\d+)\)$', data_type) -%}
    {%- set spec = {'name': name, 'column': '`' ~ name.replace('`', '``') ~ '`', 'type': data_type} -%}
    {%- if data_type in bits -%}
        {%- do spec.update({'family': 'integer', 'low': -(2 ** bits[data_type]), 'high': 2 ** bits[data_type] - 1}) -%}
    {%- elif decimal and (decimal.group(1) or 10) | int >= 1 and (decimal.group(1) or 10) | int <= 38
            and (decimal.group(2) or 0) | int <= (decimal.group(1) or 10) | int -%}
        {%- do spec.update({'family': 'decimal', 'precision': (decimal.group(1) or 10) | int, 'scale': (decimal.group(2) or 0) | int}) -%}
        {%- do spec.update({'type': 'decimal(' ~ spec.precision ~ ',' ~ spec.scale ~ ')'}) -%}
    {%- elif varchar -%}
        {%- do spec.update({'family': 'string', 'length': varchar.group(1) | int}) -%}
    {%- elif data_type in ('string', 'boolean', 'date', 'timestamp', 'timestamp_ntz') -%}
        {%- do spec.update({'family': data_type}) -%}
    {%- else -%}
        {{ window_tvf._argument_error('parse_json_lines', 'fields', {name: declared}, "the types a JSON value is read "
            ~ "into exactly are string, varchar(n), boolean, tinyint, smallint, int, bigint, decimal(p,s), date, timestamp "
            ~ "and timestamp_ntz (not float or double: read the number into a decimal(p,s) that holds it, and cast)") }}
    {%- endif -%}
    {{ return(spec) }}
{% endmacro %}

{#- Options that do not apply to the field's type, and bounds that do not fit it, are errors. -#}
{% macro _json_check_options(spec, options, declared) %}
    {%- set fields = {spec.name: declared} -%}
    {%- set bounded = spec.family in ('integer', 'decimal', 'date', 'timestamp', 'timestamp_ntz') -%}
    {%- for option in ['min', 'max'] if option in options -%}
        {%- set literal = window_tvf._typed_literal(options[option], spec.type) if bounded and options[option] is not none else none -%}
        {%- if literal is none -%}
            {{ window_tvf._argument_error('parse_json_lines', 'fields', fields, option ~ " must be a value of the field's type "
                ~ "(for numbers, dates and times; " ~ spec.type ~ " holds " ~ window_tvf._type_holds(spec.type) ~ ")") }}
        {%- endif -%}
        {%- do spec.update({option: literal, option ~ '_shown': options[option] | string}) -%}
    {%- endfor -%}
    {%- if 'pattern' in options and (spec.family != 'string' or options.pattern is not string) -%}
        {{ window_tvf._argument_error('parse_json_lines', 'fields', fields, "pattern is a Java regex (a string) for string fields") }}
    {%- endif -%}
    {%- do spec.update({'pattern': options.get('pattern')}) -%}
    {%- if spec.numbers_as_text and spec.family not in ('integer', 'decimal') -%}
        {{ window_tvf._argument_error('parse_json_lines', 'fields', fields, "numbers_as_text applies to integer and decimal fields") }}
    {%- elif spec.require_zone and spec.family != 'timestamp' -%}
        {{ window_tvf._argument_error('parse_json_lines', 'fields', fields, "require_zone applies to timestamp fields") }}
    {%- elif spec.key and spec.nullable -%}
        {{ window_tvf._argument_error('parse_json_lines', 'fields', fields, "a key identifies the record: it cannot be nullable") }}
    {%- endif -%}
{% endmacro %}


{#-
    The exact path's steps after the line's pairs (parse_json_lines.sql, _json_exact_path): `stages`, a list of
    {'name': a lambda variable, 'columns': [(column, SQL), ...]}, each stage's columns reading the earlier ones
    through their names (json_fields.field_1), and `problems`, each field's problem, for the result. Per field i:
    its value as written (field_i: how often its key occurs, the value's text, a string's value unescaped; a NULL
    count for a line that is no JSON object), the value's JSON kind (written out where it is used: it only reads
    field_i), the value as shown in messages, for numbers the number as written, the typed candidate (NULL when the
    column cannot hold the value) and the problem (NULL, or the reason code and message). `pairs`, `texts` and
    `object_problem` name what the earlier stages found. As few stages as that: Spark resolves each nested lambda
    in passes of its own (about ten a stage on Spark 3.5, whose limit is 100).
-#}
{% macro _json_field_stages(specs, pairs, texts, object_problem) %}
    {%- set stages = [{'name': 'json_fields', 'columns': []}, {'name': 'json_texts', 'columns': []},
        {'name': 'json_candidates', 'columns': []}] -%}
    {%- set problems = [] -%}
    {%- for spec in specs -%}
        {%- set i = spec.index | string -%}
        {%- set r = window_tvf._json_field_refs(spec.index, object_problem) -%}
        {%- set occurrences = "filter(" ~ pairs ~ ", pair -> pair.key = " ~ window_tvf._sql_literal(spec.name) ~ ")" -%}
        {%- do stages[0].columns.append(('field_' ~ i, "named_struct('count', case when " ~ pairs ~ " is not null then size("
            ~ occurrences ~ ") end, 'raw', aggregate(" ~ occurrences ~ ", cast(null as string), (found, pair) -> coalesce(found, pair.raw)), "
            ~ "'text', " ~ texts ~ "." ~ spec.column ~ ")")) -%}
        {%- do stages[1].columns.append(('shown_' ~ i, window_tvf._json_excerpt("case when " ~ r.kind ~ " in ('object', 'array') then "
            ~ r.field ~ ".text else " ~ r.field ~ ".raw end"))) -%}
        {%- if spec.family in ('integer', 'decimal') -%}
            {%- set as_text = " when " ~ r.kind ~ " = 'string' and " ~ r.field ~ ".text rlike '^-?(0|[1-9][0-9]*)([.][0-9]+)?([eE][+-]?[0-9]+)?$' then "
                ~ r.field ~ ".text" if spec.numbers_as_text else "" -%}
            {%- set number_text = "case when " ~ r.kind ~ " = 'number' then " ~ r.field ~ ".raw" ~ as_text ~ " end" -%}
            {%- set digits = '(' ~ window_tvf._json_digits('(' ~ number_text ~ ')') ~ ')' -%}
            {%- do stages[1].columns.append(('number_text_' ~ i, number_text)) -%}
            {#- A number as written, exactly: sign, significant digits (no leading or trailing zeros; '' for zero) and the
                exponent of the last one, so 2.50 is 25e-1 and 1e3 is 1e3. -#}
            {%- do stages[1].columns.append(('number_' ~ i, "named_struct('negative', " ~ digits ~ ".negative, 'significant', regexp_replace("
                ~ digits ~ ".digits, '0+$', ''), 'exponent', " ~ digits ~ ".exponent - " ~ digits ~ ".fraction_length + length(" ~ digits
                ~ ".digits) - length(regexp_replace(" ~ digits ~ ".digits, '0+$', '')))")) -%}
        {%- endif -%}
        {%- do stages[2].columns.append(('candidate_' ~ i, window_tvf._json_candidate(spec, r))) -%}
        {%- do problems.append(window_tvf._json_field_problem(spec, r)) -%}
    {%- endfor -%}
    {{ return({'stages': stages | selectattr('columns') | list, 'problems': problems}) }}
{% endmacro %}

{#- Where a field's values are, for the expressions that read them (json_texts.number_1, ...); its kind as SQL. -#}
{% macro _json_field_refs(index, object_problem) %}
    {%- set r = {'object_problem': object_problem, 'field': 'json_fields.field_' ~ index} -%}
    {%- do r.update({'kind': '(' ~ window_tvf._json_kind(r.field) ~ ')'}) -%}
    {%- for name, stage in [('shown', 'json_texts'), ('number_text', 'json_texts'), ('number', 'json_texts'), ('candidate', 'json_candidates')] -%}
        {%- do r.update({name: stage ~ '.' ~ name ~ '_' ~ index}) -%}
    {%- endfor -%}
    {{ return(r) }}
{% endmacro %}

{#- The JSON kind of a value from its text as written: string, boolean, null, object, array or number. -#}
{% macro _json_kind(field) %}
    {{- return("case when " ~ field ~ ".count = 0 then null when left(" ~ field ~ ".raw, 1) = '\"' then 'string' when "
        ~ field ~ ".raw in ('true', 'false') then 'boolean' when " ~ field ~ ".raw = 'null' then 'null' when " ~ field
        ~ ".raw = '{' then 'object' when " ~ field ~ ".raw = '[' then 'array' else 'number' end") -}}
{% endmacro %}

{#- The parts of a JSON number's text: sign, its digits without leading zeros, how many followed the point, its exponent. -#}
{% macro _json_digits(text) %}
    {%- set fraction = "regexp_extract(" ~ text ~ ", '^-?[0-9]+[.]([0-9]+)', 1)" -%}
    {%- set exponent = "regexp_replace(regexp_extract(" ~ text ~ ", '[eE][+-]?([0-9]+)$', 1), '^0+', '')" -%}
    named_struct(
                'negative', {{ text }} like '-%',
                'digits', regexp_replace(concat(regexp_extract({{ text }}, '^-?([0-9]+)', 1), {{ fraction }}), '^0+', ''),
                'fraction_length', length({{ fraction }}),
                {#- an exponent of more than 9 digits puts any number far beyond every column's range -#}
                'exponent', case when length({{ exponent }}) > 9 then 1000000000 else cast(coalesce(nullif({{ exponent }}, ''), '0') as bigint) end
                    * case when {{ text }} rlike '[eE]-' then -1 else 1 end
            )
{%- endmacro %}

{#- The number as a decimal text Spark reads exactly ('-25e-1'), from a field's number struct. -#}
{% macro _json_number_text(number) %}
    {{- return("concat(case when " ~ number ~ ".negative then '-' else '' end, " ~ number ~ ".significant, 'e', "
        ~ number ~ ".exponent)") -}}
{% endmacro %}

{#- The calendar-and-clock form a time must have (as fillna's _time_literal): Java regex in a SQL literal. -#}
{% macro _json_time_pattern(spec) %}
    {%- set date = '(?!0000)[0-9]{4}-[0-9]{2}-[0-9]{2}' -%}
    {%- set clock = '(?:[01][0-9]|2[0-3]):[0-5][0-9](?::[0-5][0-9](?:[.][0-9]{1,6})?)?' -%}
    {%- set zone = '(?:Z|[+-](?:0[0-9]|1[0-8]):[0-5][0-9])' -%}
    {%- if spec.family == 'date' -%}
        {{ return("'^" ~ date ~ "$'") }}
    {%- elif spec.family == 'timestamp_ntz' -%}
        {{ return("'^" ~ date ~ "(?:[T ]" ~ clock ~ ")?$'") }}
    {%- elif spec.require_zone -%}
        {{ return("'^" ~ date ~ "[T ]" ~ clock ~ zone ~ "$'") }}
    {%- endif -%}
    {{ return("'^" ~ date ~ "(?:[T ]" ~ clock ~ ")?" ~ zone ~ "?$'") }}
{% endmacro %}

{#- The field's typed value when its column holds the value exactly, else NULL (`r`: _json_field_refs). -#}
{% macro _json_candidate(spec, r) %}
    {%- set field, kind, number = r.field, r.kind, r.number -%}
    {%- set is_number = r.number_text ~ ' is not null' -%}
    {%- if spec.family == 'string' -%}
        {{ return("case when " ~ kind ~ " = 'string' then " ~ field ~ ".text end") }}
    {%- elif spec.family == 'boolean' -%}
        {{ return("case when " ~ kind ~ " = 'boolean' then " ~ field ~ ".raw = 'true' end") }}
    {%- elif spec.family == 'integer' -%}
        {%- set exact = "try_cast(" ~ window_tvf._json_number_text(number) ~ " as decimal(38,0))" -%}
        {{ return("case when " ~ is_number ~ " and " ~ number ~ ".significant = '' then cast(0 as " ~ spec.type ~ ") when "
            ~ is_number ~ " and " ~ number ~ ".exponent >= 0 and length(" ~ number ~ ".significant) + " ~ number
            ~ ".exponent <= 19 and " ~ exact ~ " between " ~ spec.low ~ " and " ~ spec.high ~ " then cast(" ~ exact
            ~ " as " ~ spec.type ~ ") end") }}
    {%- elif spec.family == 'decimal' -%}
        {{ return("case when " ~ is_number ~ " and " ~ number ~ ".significant = '' then cast(0 as " ~ spec.type ~ ") when "
            ~ is_number ~ " and -" ~ number ~ ".exponent <= " ~ spec.scale ~ " and length(" ~ number ~ ".significant) + "
            ~ number ~ ".exponent <= " ~ (spec.precision - spec.scale) ~ " then try_cast(" ~ window_tvf._json_number_text(number)
            ~ " as " ~ spec.type ~ ") end") }}
    {%- endif -%}
    {{ return("case when " ~ kind ~ " = 'string' then " ~ window_tvf._json_time_candidate(spec, field ~ '.text') ~ " end") }}
{% endmacro %}

{#- A date or time field's value from the text of a JSON string, when it has the form and is on the calendar, else NULL. -#}
{% macro _json_time_candidate(spec, text) %}
    {%- set valid_date = "" if spec.family == 'date' else " and try_cast(left(" ~ text ~ ", 10) as date) is not null" -%}
    {{ return("case when " ~ text ~ " rlike " ~ window_tvf._json_time_pattern(spec) ~ valid_date ~ " then try_cast("
        ~ window_tvf._json_time_text(spec, text) ~ " as " ~ spec.type ~ ") end") }}
{% endmacro %}

{#-
    A time of the form _json_time_pattern allows, as Spark's cast reads it: the cast takes no zone after a date alone
    or after HH:MM ('2024-01-01Z', '2024-01-01T10:00+02:00' give NULL), so midnight or the seconds are written out.
-#}
{% macro _json_time_text(spec, text) %}
    {%- if spec.family != 'timestamp' -%}{{ return(text) }}{%- endif -%}
    {{ return("case when substr(" ~ text ~ ", 11, 1) in ('Z', '+', '-') then concat(left(" ~ text ~ ", 10), 'T00:00:00', substr("
        ~ text ~ ", 11)) when substr(" ~ text ~ ", 17, 1) in ('Z', '+', '-') then concat(left(" ~ text ~ ", 16), ':00', substr("
        ~ text ~ ", 17)) else " ~ text ~ " end") }}
{% endmacro %}

{#- The range a timestamp or timestamp_ntz field holds, as `low and high` for a between. -#}
{% macro _json_time_range(spec) %}
    {%- set zone = 'Z' if spec.family == 'timestamp' else '' -%}
    {{ return(spec.type ~ "'0001-01-01 00:00:00" ~ zone ~ "' and " ~ spec.type ~ "'9999-12-31 23:59:59.999999" ~ zone ~ "'") }}
{% endmacro %}

{#- What a field of this spec takes, for messages: "quantity (int) takes a JSON number: whole numbers from ...". -#}
{% macro _json_field_takes(spec) %}
    {%- set number = 'a JSON number' ~ (' or a JSON string holding one' if spec.numbers_as_text else '') -%}
    {%- set takes = {
        'string': 'a JSON string' ~ (' of at most ' ~ spec.length ~ ' characters' if spec.length else ''),
        'boolean': 'JSON true or false',
        'integer': number ~ ': ' ~ window_tvf._type_holds(spec.type),
        'decimal': number ~ ': ' ~ window_tvf._type_holds(spec.type),
        'date': "a JSON string holding a calendar date 'YYYY-MM-DD' (years 0001 to 9999)",
        'timestamp': "a JSON string holding an ISO time " ~ ("'YYYY-MM-DDTHH:MM[:SS[.ffffff]]' with its zone (Z or +HH:MM)"
            if spec.require_zone else "'YYYY-MM-DD[ HH:MM[:SS[.ffffff]]]' with an optional zone (Z or +HH:MM)"),
        'timestamp_ntz': "a JSON string holding an ISO time 'YYYY-MM-DD[ HH:MM[:SS[.ffffff]]]' without a zone",
    } -%}
    {%- set clock = ' that exists on the calendar and the clock (at most 6 digits after the second)' if spec.family.startswith('timestamp') else '' -%}
    {{ return(spec.name ~ ' (' ~ spec.type ~ ') takes ' ~ takes[spec.family] ~ clock) }}
{% endmacro %}

{#- The problem of a field's value (the first that applies), or NULL; none for a line that is no JSON object. -#}
{% macro _json_field_problem(spec, r) %}
    {%- set field, kind, candidate, number, shown = r.field, r.kind, r.candidate, r.number, r.shown -%}
    {%- set name = spec.name -%}
    {%- set takes = window_tvf._json_field_takes(spec) -%}
    {#- (condition, reason code or none for a value that is NULL, message as SQL) -#}
    {%- set checks = [
        (field ~ '.count > 1', 'duplicate_field', "concat(" ~ window_tvf._sql_literal('duplicate_field:' ~ name ~ ': the key ' ~ name ~ ' appears ')
            ~ ", " ~ field ~ ".count, ' times')"),
        (field ~ '.count = 0', 'missing_field' if spec.required else none, window_tvf._sql_literal('missing_field:' ~ name ~ ': the object has no key ' ~ name)),
        (kind ~ " = 'null'", 'null_key' if spec.key else (none if spec.nullable else 'null_field'),
            window_tvf._sql_literal(('null_key:' if spec.key else 'null_field:') ~ name ~ '=null: ' ~ name ~ ' must not be null'
                ~ (' (it identifies the record)' if spec.key else ''))),
    ] -%}
    {%- if spec.family in ('string', 'boolean') -%}
        {%- do checks.append((candidate ~ ' is null', 'bad_type', window_tvf._json_value_message('bad_type', name, shown, takes))) -%}
        {%- if spec.length -%}
            {%- do checks.append(('char_length(' ~ candidate ~ ') > ' ~ spec.length, 'bad_value', window_tvf._json_value_message('bad_value', name, shown, takes))) -%}
        {%- endif -%}
        {%- if spec.pattern is not none -%}
            {%- do checks.append(('not ' ~ candidate ~ ' rlike ' ~ window_tvf._sql_literal('^(?:' ~ spec.pattern ~ ')\\z'), 'bad_value',
                window_tvf._json_value_message('bad_value', name, shown, name ~ ' must match the pattern ' ~ spec.pattern))) -%}
        {%- endif -%}
    {%- elif spec.family in ('integer', 'decimal') -%}
        {%- set scale = 0 if spec.family == 'integer' else spec.scale -%}
        {%- do checks.append((r.number_text ~ ' is null', 'bad_type', window_tvf._json_value_message('bad_type', name, shown, takes))) -%}
        {%- do checks.append((number ~ ".significant != '' and -" ~ number ~ ".exponent > " ~ scale, 'bad_type', window_tvf._json_value_message('bad_type', name, shown, takes))) -%}
        {%- do checks.append((candidate ~ ' is null', 'out_of_range', window_tvf._json_value_message('out_of_range', name, shown, takes))) -%}
    {%- else -%}
        {%- do checks.append((kind ~ " != 'string'", 'bad_type', window_tvf._json_value_message('bad_type', name, shown, takes))) -%}
        {%- do checks.append((candidate ~ ' is null', 'bad_time', window_tvf._json_value_message('bad_time', name, shown, takes))) -%}
        {%- if spec.family != 'date' -%}
            {%- do checks.append((candidate ~ " not between " ~ window_tvf._json_time_range(spec), 'out_of_range',
                window_tvf._json_value_message('out_of_range', name, shown, name ~ ' (' ~ spec.type
                    ~ ') holds times from 0001-01-01 to 9999-12-31' ~ (' UTC' if spec.family == 'timestamp' else '')))) -%}
        {%- endif -%}
    {%- endif -%}
    {%- for bound, comparison, phrase in [('min', '<', 'at least'), ('max', '>', 'at most')] if spec.get(bound) is not none -%}
        {%- do checks.append((candidate ~ ' ' ~ comparison ~ ' ' ~ spec[bound], 'out_of_range',
            window_tvf._json_value_message('out_of_range', name, shown, name ~ ' must be ' ~ phrase ~ ' ' ~ spec[bound ~ '_shown']))) -%}
    {%- endfor -%}
    case
        when {{ r.object_problem }} is not null then null
        {%- for condition, code, message in checks %}
        when {{ condition }} then {{ 'null' if code is none else window_tvf._json_problem(code ~ ':' ~ name, message) }}
        {%- endfor %}
    end
{%- endmacro %}

{#- "bad_type:quantity=2.5: quantity (int) takes ...": the code, the field, its value as written, and what it takes. -#}
{% macro _json_value_message(code, name, shown, text) %}
    {{- return("concat(" ~ window_tvf._sql_literal(code ~ ':' ~ name ~ '=') ~ ", " ~ shown ~ ", " ~ window_tvf._sql_literal(': ' ~ text) ~ ")") -}}
{% endmacro %}
