{#- A Python/Jinja value as a Spark SQL literal: NULL, true/false, numbers as written, timestamps, escaped strings. -#}
{% macro _sql_literal(value) %}
    {%- if value is none -%}
        {{ return('null') }}
    {%- elif value is sameas true or value is sameas false -%}
        {{ return('true' if value else 'false') }}
    {%- elif value is number -%}
        {{ return(value | string) }}
    {%- elif value.isoformat is defined -%}
        {{ return("'" ~ value.isoformat(' ') ~ "'") }}
    {%- else -%}
        {{ return("'" ~ (value | string).replace('\\', '\\\\').replace("'", "\\'") ~ "'") }}
    {%- endif -%}
{% endmacro %}


{#
    Values written into a column (fillna, replace). A value fits a column when the column holds it exactly; Spark
    is not asked, because dbt-spark runs with spark.sql.ansi.enabled=false, where a cast that does not fit wraps
    around or gives NULL without an error. The rule (docs/table_api.md, "Which values fit which column"):
    - NULL fits every column.
    - A number is the decimal it was written as: a whole number (an int) exactly; a fraction, which Jinja reads as
      a double, as its shortest form (0.1 is 0.1), to its last digit. tinyint, smallint, int and bigint hold the
      whole numbers of their range; decimal(p,s) numbers with at most p-s digits before the point and s after it;
      float and double a number whose nearest float/double reads back as the same number: a whole number only when
      held exactly (every one up to 2^24 for float, 2^53 for double), a fraction to its last written digit (0.1
      fits both; 0.123456789 fits double, not float).
    - A string fits string columns (varchar(n) and char(n): at most n characters). When `text_as_time`, also a date
      column if it is a calendar date 'YYYY-MM-DD', and a timestamp column if it is an ISO time
      'YYYY-MM-DD[ HH:MM[:SS[.ffffff]]]' with an optional zone (Z, +02:00; none for timestamp_ntz).
    - A date object (modules.datetime) fits date columns, a datetime object timestamp columns, as their ISO text
      would; a boolean fits boolean columns only.
#}
{% macro _value_fits(value, data_type, text_as_time=true) %}
    {{ return(window_tvf._typed_literal(value, data_type, text_as_time) is not none) }}
{% endmacro %}

{#- `value` as a SQL expression of `data_type` holding it exactly, or none when the column cannot hold it. -#}
{% macro _typed_literal(value, data_type, text_as_time=true) %}
    {%- set column_type = data_type | lower | trim -%}
    {%- set literal = none -%}
    {%- set is_time_object = value is not string and value.isoformat is defined -%}
    {%- if value is none -%}
        {%- set literal = 'null' -%}
    {%- elif value is sameas true or value is sameas false -%}
        {%- set literal = (('true' if value else 'false') if column_type == 'boolean' else none) -%}
    {%- elif value is number -%}
        {%- set literal = window_tvf._number_literal(value, column_type) -%}
    {%- elif value is string and window_tvf._text_length_limit(column_type) is not none -%}
        {%- set literal = (window_tvf._sql_literal(value) if (value | length) <= window_tvf._text_length_limit(column_type) else none) -%}
    {%- elif is_time_object or (value is string and text_as_time) -%}
        {%- set literal = window_tvf._time_literal(value, column_type) -%}
    {%- endif -%}
    {#- Spark's cast treats char(n) and varchar(n) as string (and warns): cast to string, whose value is the same -#}
    {%- set cast_type = 'string' if modules.re.match('^(var)?char\\(', column_type) else column_type -%}
    {{ return(none if literal is none else 'cast(' ~ literal ~ ' as ' ~ cast_type ~ ')') }}
{% endmacro %}

{#- The longest text a string type holds (varchar(n)/char(n): n), or none for a type that is not a string. -#}
{% macro _text_length_limit(column_type) %}
    {%- set match = modules.re.match('^(?:var)?char\((\d+)\)$', column_type) -%}
    {{ return(match.group(1) | int if match else (10 ** 18 if column_type == 'string' else none)) }}
{% endmacro %}


{#- A number as {'coefficient': digits as an int without trailing zeros, 'exponent': e, 'negative'}, or none (nan, inf). -#}
{% macro _decimal_parts(value) %}
    {%- set match = modules.re.match('^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$', value | string) -%}
    {%- if not match or not (match.group(2) or match.group(3)) -%}{{ return(none) }}{%- endif -%}
    {%- set fraction = match.group(3) or '' -%}
    {%- set digits = ((match.group(2) or '') ~ fraction).lstrip('0') -%}
    {%- set significant = digits.rstrip('0') -%}
    {%- set exponent = (match.group(4) or '0') | int - (fraction | length) + (digits | length) - (significant | length) -%}
    {{ return({'coefficient': (significant or '0') | int, 'exponent': exponent if significant else 0,
        'digits': significant | length, 'negative': match.group(1) == '-'}) }}
{% endmacro %}

{#- A number as a literal of `column_type` holding it exactly (integer, decimal, float or double), or none. -#}
{% macro _number_literal(value, column_type) %}
    {%- set parts = window_tvf._decimal_parts(value) -%}
    {%- set integer_bits = {'tinyint': 7, 'byte': 7, 'smallint': 15, 'short': 15, 'int': 31, 'integer': 31, 'bigint': 63, 'long': 63} -%}
    {%- set binary = {'float': [24, -126, 127], 'real': [24, -126, 127], 'double': [53, -1022, 1023]} -%}
    {%- set decimal = modules.re.match('^(?:decimal|dec|numeric)(?:\((\d+)(?:,\s*(\d+))?\))?$', column_type) -%}
    {#- beyond 10^400 either way no numeric column holds a number (a double ends near 1.8e308, 4.9e-324) -#}
    {%- if parts is none or parts.exponent > 400 or parts.exponent + parts.digits < -400 -%}{{ return(none) }}{%- endif -%}
    {%- set sign = '-' if parts.negative and parts.coefficient else '' -%}
    {%- if column_type in integer_bits -%}
        {%- set whole = parts.coefficient * 10 ** ([parts.exponent, 0] | max) -%}
        {%- set limit = 2 ** integer_bits[column_type] -%}
        {%- set fits = parts.exponent >= 0 and (whole <= limit if sign else whole < limit) -%}
        {{ return(sign ~ whole if fits else none) }}
    {%- elif decimal -%}
        {%- set precision, scale = (decimal.group(1) or 10) | int, (decimal.group(2) or 0) | int -%}
        {%- set fits = -parts.exponent <= scale and parts.digits + parts.exponent <= precision - scale -%}
        {{ return(sign ~ window_tvf._plain_decimal(parts) if fits or not parts.coefficient else none) }}
    {%- elif column_type in binary -%}
        {%- set fits = window_tvf._binary_float_holds(parts, value is integer, *binary[column_type]) -%}
        {{ return("'" ~ value ~ "'" if fits else none) }}
    {%- endif -%}
    {{ return(none) }}
{% endmacro %}

{#- The digits of a number without an exponent, e.g. 0.000015 or 1500, as a Spark exact numeric literal. -#}
{% macro _plain_decimal(parts) %}
    {%- if parts.exponent >= 0 -%}{{ return(parts.coefficient ~ '0' * parts.exponent) }}{%- endif -%}
    {%- set digits = (parts.coefficient | string).rjust(1 - parts.exponent, '0') -%}
    {{ return(digits[:parts.exponent] ~ '.' ~ digits[parts.exponent:]) }}
{% endmacro %}

{#-
    Whether the binary floating-point type with `bits` of significand and normal exponents min..max (float: 24,
    -126, 127; double: 53, -1022, 1023) holds the number: its nearest value (rounded half to even, as Spark's cast
    from text rounds) equals the number when `exact` (a whole number), or else lies within half a unit of the
    number's last digit, so it reads back as the same number. Integer arithmetic only, so exact.
-#}
{% macro _binary_float_holds(parts, exact, bits, min_exponent, max_exponent) %}
    {%- if not parts.coefficient -%}{{ return(true) }}{%- endif -%}
    {#- the number is numerator / denominator; e = floor(log2(number)) -#}
    {%- set numerator = parts.coefficient * 10 ** ([parts.exponent, 0] | max) -%}
    {%- set denominator = 10 ** ([-parts.exponent, 0] | max) -%}
    {%- set e = numerator.bit_length() - denominator.bit_length() -%}
    {%- set e = e if numerator * 2 ** ([-e, 0] | max) >= denominator * 2 ** ([e, 0] | max) else e - 1 -%}
    {#- the nearest value is q * 2^unit: `unit` is the last significand bit's weight (fixed below the normal range) -#}
    {%- set unit = ([e, min_exponent] | max) - (bits - 1) -%}
    {%- set scaled, divisor = numerator * 2 ** ([-unit, 0] | max), denominator * 2 ** ([unit, 0] | max) -%}
    {%- set q, remainder = scaled // divisor, scaled % divisor -%}
    {%- set q = q + 1 if 2 * remainder > divisor or (2 * remainder == divisor and q % 2 == 1) else q -%}
    {%- if unit + q.bit_length() - 1 > max_exponent -%}{{ return(false) }}{%- endif -%}
    {%- set error = (q * divisor - scaled) | abs -%}
    {%- if exact -%}{{ return(error == 0) }}{%- endif -%}
    {#- |nearest - number| = 2^unit * error / divisor, below 10^exponent / 2 -#}
    {{ return(2 * error * 2 ** ([unit, 0] | max) * 10 ** ([-parts.exponent, 0] | max)
        < divisor * 2 ** ([-unit, 0] | max) * 10 ** ([parts.exponent, 0] | max)) }}
{% endmacro %}

{#-
    A date/datetime object or ISO text as a literal of a date, timestamp or timestamp_ntz column, or none: a date
    column takes 'YYYY-MM-DD' only, timestamp_ntz no zone; every part must exist on the calendar and the clock. A
    date object fits date columns only, a datetime object timestamp columns only.
-#}
{% macro _time_literal(value, column_type) %}
    {%- if value is not string and (value.hour is defined) != (column_type != 'date') -%}{{ return(none) }}{%- endif -%}
    {%- set text = value if value is string else (value.isoformat(' ') if value.hour is defined else value.isoformat()) -%}
    {%- set match = modules.re.match('^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,6})?)?)?(Z|[+-](\d{2}):(\d{2}))?$', text) -%}
    {%- if not match or column_type not in ('date', 'timestamp', 'timestamp_ntz')
        or (column_type == 'date' and match.group(4)) or (column_type != 'timestamp' and match.group(7)) -%}
        {{ return(none) }}
    {%- endif -%}
    {%- set year, month, day = match.group(1) | int, match.group(2) | int, match.group(3) | int -%}
    {%- set leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0) -%}
    {%- set month_days = [31, 29 if leap else 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31] -%}
    {%- if year < 1 or not (1 <= month <= 12) or not (1 <= day <= month_days[month - 1]) -%}{{ return(none) }}{%- endif -%}
    {#- hour, minute, second, zone hours, zone minutes -#}
    {%- for part, limit in [(4, 23), (5, 59), (6, 59), (8, 18), (9, 59)] if (match.group(part) or 0) | int > limit -%}
        {{ return(none) }}
    {%- endfor -%}
    {{ return(column_type ~ "'" ~ text ~ "'") }}
{% endmacro %}

{#- What a column of `data_type` holds, for the error messages of fillna and replace. -#}
{% macro _type_holds(data_type) %}
    {%- set column_type = data_type | lower | trim -%}
    {%- set integer_bits = {'tinyint': 7, 'byte': 7, 'smallint': 15, 'short': 15, 'int': 31, 'integer': 31, 'bigint': 63, 'long': 63} -%}
    {%- set decimal = modules.re.match('^(?:decimal|dec|numeric)(?:\((\d+)(?:,\s*(\d+))?\))?$', column_type) -%}
    {%- set limit = window_tvf._text_length_limit(column_type) -%}
    {%- if column_type in integer_bits -%}
        {{ return('whole numbers from ' ~ -(2 ** integer_bits[column_type]) ~ ' to ' ~ (2 ** integer_bits[column_type] - 1)) }}
    {%- elif decimal -%}
        {%- set precision, scale = (decimal.group(1) or 10) | int, (decimal.group(2) or 0) | int -%}
        {{ return('numbers with at most ' ~ (precision - scale) ~ ' digits before the point and ' ~ scale ~ ' after it') }}
    {%- elif column_type in ('float', 'real', 'double') -%}
        {%- set bits = 24 if column_type != 'double' else 53 -%}
        {{ return('a number whose nearest ' ~ column_type ~ ' reads back as the same number: whole numbers exactly held '
            ~ '(all up to 2^' ~ bits ~ ' = ' ~ 2 ** bits ~ '), fractions to their last digit (about '
            ~ (7 if bits == 24 else 16) ~ ' significant digits)') }}
    {%- elif limit is not none -%}
        {{ return('strings' ~ (' of at most ' ~ limit ~ ' characters' if column_type != 'string' else '')) }}
    {%- elif column_type == 'date' -%}
        {{ return("calendar dates written 'YYYY-MM-DD'") }}
    {%- elif column_type in ('timestamp', 'timestamp_ntz') -%}
        {{ return("ISO times 'YYYY-MM-DD[ HH:MM[:SS[.ffffff]]]'" ~ (" with an optional zone such as +02:00" if column_type == 'timestamp' else " without a zone")) }}
    {%- elif column_type == 'boolean' -%}
        {{ return('true or false') }}
    {%- endif -%}
    {{ return('no value these macros can write (only NULL)') }}
{% endmacro %}


{#- The columns of a relation as {lower-case name: type}, which a table operation needs to list its output. -#}
{% macro _required_columns(relation, macro_name) %}
    {%- set relation = window_tvf._relation(relation, macro_name) -%}
    {%- set columns = window_tvf._known_columns(relation) -%}
    {%- if execute and not columns -%}
        {{ window_tvf._argument_error(macro_name, 'relation', relation | string,
            "this operation reads the relation's columns and types from the warehouse, so it needs a ref()/source() "
            ~ "relation that exists (a CTE name cannot be read)") }}
    {%- endif -%}
    {{ return(columns) }}
{% endmacro %}


{#- Every column of `columns` (as from _required_columns) in order, replaced by `expressions[name]` where given. -#}
{% macro _project_columns(columns, expressions) %}
    {%- set projection = [] -%}
    {%- for name in columns -%}
        {%- do projection.append(expressions[name] ~ ' as `' ~ name ~ '`' if name in expressions else 'source_rows.`' ~ name ~ '`') -%}
    {%- endfor -%}
    {{ return(projection | join(',\n    ')) }}
{% endmacro %}


{#- An aware datetime (as from _utc_instant) as a Spark `timestamp` literal of that instant, to the microsecond. -#}
{% macro _instant_literal(instant) -%}
    timestamp'{{ instant.astimezone(modules.pytz.utc).strftime('%Y-%m-%d %H:%M:%S.%f') }}Z'
{%- endmacro %}
