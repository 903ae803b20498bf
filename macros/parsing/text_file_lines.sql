{#
    text_file_lines(paths): every line of the text files, as (line, source_file, line_number), and one row
    (line NULL, line_number NULL) for each file without a line, so an empty file is seen too. Lines split as
    Spark's text source splits them (at \n, \r\n and \r; a last line without a line break is a line); line_number
    counts from 1 in each file, in file order, however Spark splits a large file (the split's offset in the file,
    then the row's position in the split). The line is the file's bytes (parse_json_lines tells whether they are
    UTF-8), except a UTF-8 byte order mark at the very start of a file: Hadoop's line reader skips it as the file's
    encoding mark.
#}
{% macro text_file_lines(paths) %}
    {{ return(adapter.dispatch('text_file_lines', 'window_tvf')(paths)) }}
{% endmacro %}

{% macro default__text_file_lines(paths) %}
    {%- set paths = [paths] if paths is string else paths -%}
    {%- if paths is none or paths is mapping or paths is not iterable -%}
        {{ window_tvf._argument_error('text_file_lines', 'paths', paths, "expected a list of file paths (may be empty)") }}
    {%- endif -%}
    {%- for path in paths if path is not string or not path -%}
        {{ window_tvf._argument_error('text_file_lines', 'paths', paths, "expected file paths as non-empty strings") }}
    {%- endfor -%}
    with text_file_lines__read as (
        {%- for path in paths %}
        select
            value as line,
            {{ window_tvf._sql_literal(path) }} as source_file,
            _metadata.file_block_start as split_start,
            monotonically_increasing_id() as position_in_split
        from text.`{{ path | replace('`', '``') }}`
        {%- if not loop.last %}
        union all
        {%- endif %}
        {%- else %}
        select
            cast(null as string) as line,
            cast(null as string) as source_file,
            cast(null as bigint) as split_start,
            cast(null as bigint) as position_in_split
        where false
        {%- endfor %}
    ),

    text_file_lines__files as (
        {%- if paths %}
        select source_file
        from values {% for path in paths %}({{ window_tvf._sql_literal(path) }}){{ ', ' if not loop.last }}{% endfor %} as listed (source_file)
        {%- else %}
        select cast(null as string) as source_file
        where false
        {%- endif %}
    )

    select
        line,
        source_file,
        cast(row_number() over (partition by source_file order by split_start, position_in_split) as int) as line_number
    from text_file_lines__read

    union all

    select
        cast(null as string) as line,
        listed.source_file,
        cast(null as int) as line_number
    from text_file_lines__files as listed
    left anti join text_file_lines__read as landed
        on landed.source_file = listed.source_file
{%- endmacro %}
