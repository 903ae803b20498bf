{#
    file_name_time(paths, pattern, time_format='%Y-%m-%dT%H', column='source_file'): the time a file's name holds,
    for the rows of text_file_lines(paths): a SQL expression that is, for each row, the instant (UTC) written in the
    name of its file (`column`), e.g. 2026-01-01 03:00 UTC for events_2026-01-01T03_part2.jsonl. Read when the model
    compiles, from the paths themselves: no pattern is matched against every row, and a file whose name does not
    match fails the compilation, naming the file and the form its name must have (a file without its hour cannot be
    given one).
#}
{% macro file_name_time(paths, pattern, time_format='%Y-%m-%dT%H', column='source_file') %}
    {{ return(adapter.dispatch('file_name_time', 'window_tvf')(paths, pattern, time_format, column)) }}
{% endmacro %}

{% macro default__file_name_time(paths, pattern, time_format='%Y-%m-%dT%H', column='source_file') %}
    {%- set name = 'file_name_time' -%}
    {%- set paths = [paths] if paths is string else paths -%}
    {%- if paths is none or paths is mapping or paths is not iterable -%}
        {{ window_tvf._argument_error(name, 'paths', paths, "expected a list of file paths (may be empty)") }}
    {%- endif -%}
    {%- set compiled = window_tvf._file_name_pattern(pattern, name) -%}
    {%- set column = window_tvf._column_name(column, name, 'column') -%}
    {%- set cases = [] -%}
    {%- for path in paths -%}
        {%- set found = compiled.search((path | string).split('/')[-1]) -%}
        {%- set moment = window_tvf._file_name_moment(found.group(1), time_format) if found else none -%}
        {#- Only when the model compiles: dbt's parse renders the model with whatever paths the environment holds
            then (a scheduler's last interval, a test's), and a parse must not fail for them (dbt ls, cosmos). -#}
        {%- if moment is none and execute -%}
            {{ window_tvf._argument_error(name, 'paths', path, "the file's name must match " ~ pattern ~ " with the time as "
                ~ time_format ~ " (e.g. " ~ modules.datetime.datetime(2026, 1, 1, 3).strftime(time_format) ~ ") in its group; "
                ~ "rename the file, or move it out of the files the model reads") }}
        {%- elif moment is not none -%}
            {%- do cases.append("when " ~ window_tvf._sql_literal(path) ~ " then timestamp'" ~ moment.strftime('%Y-%m-%d %H:%M:%S') ~ "Z'") -%}
        {%- endif -%}
    {%- endfor -%}
    {{ return("case " ~ column ~ " " ~ (cases | join(' ')) ~ " end" if cases else "cast(null as timestamp)") }}
{% endmacro %}

{#- The pattern, compiled: a regex (Python's, on the file's base name) with one group. -#}
{% macro _file_name_pattern(pattern, macro_name) %}
    {%- set compiled = modules.re.compile(pattern) if pattern is string and pattern else none -%}
    {%- if compiled is none or compiled.groups != 1 -%}
        {{ window_tvf._argument_error(macro_name, 'pattern', pattern,
            "expected a regex with one group that holds the time, e.g. '^events_([0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2})(?:_[^/]*)?[.]jsonl$'") }}
    {%- endif -%}
    {{ return(compiled) }}
{% endmacro %}

{#-
    The time of `text` written as `time_format` (read as UTC), or none when it is not one: the format's fields are
    %Y (4 digits), %m, %d, %H, %M and %S (2 digits each), anything else in it literal; the date must be on the
    calendar (checked here, as Jinja cannot catch strptime's error).
-#}
{% macro _file_name_moment(text, time_format) %}
    {%- set fields = [] -%}
    {%- set regex = namespace(text='^') -%}
    {%- for part in modules.re.split('(%[YmdHMS])', time_format) -%}
        {%- if part in ('%Y', '%m', '%d', '%H', '%M', '%S') -%}
            {%- do fields.append(part) -%}
            {%- set regex.text = regex.text ~ ('([0-9]{4})' if part == '%Y' else '([0-9]{2})') -%}
        {%- else -%}
            {%- set regex.text = regex.text ~ modules.re.escape(part) -%}
        {%- endif -%}
    {%- endfor -%}
    {%- set found = modules.re.match(regex.text ~ '$', text) -%}
    {%- if not found -%}{{ return(none) }}{%- endif -%}
    {%- set value = {'%Y': 1970, '%m': 1, '%d': 1, '%H': 0, '%M': 0, '%S': 0} -%}
    {%- for field in fields -%}{%- do value.update({field: found.group(loop.index) | int}) -%}{%- endfor -%}
    {%- set year, month = value['%Y'], value['%m'] -%}
    {%- set leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0) -%}
    {%- set days = [31, 29 if leap else 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31] -%}
    {%- if year < 1 or month < 1 or month > 12 or value['%d'] < 1 or value['%d'] > days[month - 1]
            or value['%H'] > 23 or value['%M'] > 59 or value['%S'] > 59 -%}
        {{ return(none) }}
    {%- endif -%}
    {{ return(modules.datetime.datetime(year, month, value['%d'], value['%H'], value['%M'], value['%S'])) }}
{% endmacro %}
