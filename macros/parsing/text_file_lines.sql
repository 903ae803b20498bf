{#
    text_file_lines(paths): every line of the text files, as (line, source_file, line_number), and one row
    (line NULL, line_number NULL) for each file without a line, so an empty file is seen too. Lines split as
    Spark's text source splits them (at \n, \r\n and \r; a last line without a line break is a line); line_number
    counts from 1 in each file, in file order, however Spark splits a large file. The line is the file's bytes
    (parse_json_lines tells whether they are UTF-8), except a UTF-8 byte order mark at the very start of a file:
    Hadoop's line reader skips it as the file's encoding mark.

    Numbering without moving the lines: Spark reads a file in splits (by its offset in the file,
    _metadata.file_block_start), each split's lines in order in one task, where monotonically_increasing_id()
    counts them. A second read of the same files counts each split's lines and its first id; a line's number is the
    lines of the file's earlier splits plus its place in its own split. That small table is broadcast to the read
    that keeps the lines, so a file's splits are parsed on every core, where numbering them with a window over the
    file (as before) moved every line of a file to one task. Both reads are of the same files with the same plan, so
    they split and count alike; a line whose place falls outside its split fails the query rather than getting a
    wrong number.
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
    {%- call window_tvf._self_contained('text_file_lines') %}
    with text_file_lines__read as (
        {{ window_tvf._text_file_reads(paths) }}
    ),

    -- The same files read again (not the CTE above: a CTE with an id is computed once and shuffled to both readers).
    text_file_lines__splits as (
        select
            source_file,
            split_start,
            min(row_id) as first_row_id,
            count(*) as lines
        from ({{ window_tvf._text_file_reads(paths) }}) as counted
        group by source_file, split_start
    ),

    text_file_lines__offsets as (
        select
            source_file,
            split_start,
            first_row_id,
            lines,
            coalesce(sum(lines) over (
                partition by source_file order by split_start rows between unbounded preceding and 1 preceding
            ), 0) as lines_before
        from text_file_lines__splits
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

    select /*+ broadcast(split) */
        landed.line,
        landed.source_file,
        cast(split.lines_before + case
            when landed.row_id - split.first_row_id between 0 and split.lines - 1 then landed.row_id - split.first_row_id + 1
            else raise_error(concat('text_file_lines: line ', landed.row_id - split.first_row_id + 1, ' of a split of ',
                split.lines, ' lines in ', landed.source_file, ': the two reads of the file differ (was it written to meanwhile?)'))
        end as int) as line_number
    from text_file_lines__read as landed
    inner join text_file_lines__offsets as split
        on landed.source_file = split.source_file and landed.split_start = split.split_start

    union all

    select
        cast(null as string) as line,
        listed.source_file,
        cast(null as int) as line_number
    from text_file_lines__files as listed
    left anti join text_file_lines__splits as landed
        on landed.source_file = listed.source_file
    {%- endcall %}
{%- endmacro %}

{#- The lines of the files with their file, the split they were read in, and an id counting them in each split. -#}
{% macro _text_file_reads(paths) %}
    {%- for path in paths %}
        select
            value as line,
            {{ window_tvf._sql_literal(path) }} as source_file,
            _metadata.file_block_start as split_start,
            monotonically_increasing_id() as row_id
        from text.`{{ path | replace('`', '``') }}`
        {%- if not loop.last %}
        union all
        {%- endif %}
    {%- else %}
        select
            cast(null as string) as line,
            cast(null as string) as source_file,
            cast(null as bigint) as split_start,
            cast(null as bigint) as row_id
        where false
    {%- endfor %}
{%- endmacro %}
