{#
    Window grids on the wall clock. A grid is where windows (or slices) start: offset + k * period, for any integer k.
      {'unit': 'micros', 'period': p, 'offset': o}            fixed lengths, in wall-clock microseconds since
                                                              1970-01-01 00:00, so a day is a calendar day;
                                                              week grids start on a week day (week_start);
      {'unit': 'months', 'period': n, 'offset': m, 'shift': s} calendar months: windows start on the first of a month
                                                              at 00:00 (plus the fixed part of the offset, s), every n
                                                              months counted from 1970-01; quarters and years are 3 and
                                                              12 months on that grid, so they start in January, April,
                                                              July, October and on January 1.
    A position on a grid is in its unit: wall-clock microseconds, or a month number (0 = 1970-01).
#}

{#- Days from Thursday 1970-01-01 to the first week day after it that starts a week. -#}
{% macro _week_starts() %}
    {{ return({'thursday': 0, 'friday': 1, 'saturday': 2, 'sunday': 3, 'monday': 4, 'tuesday': 5, 'wednesday': 6}) }}
{% endmacro %}

{#-
    The grid of `period` (a parsed span: the TUMBLE or CUMULATE size, the HOP slide) shifted by `offset` (a
    duration string or none). `week_start` (default monday) is only for a period written in weeks.
-#}
{% macro _grid(period, offset, week_start, macro_name) %}
    {%- set shift = window_tvf._parse_span('0 ms' if offset is none else offset, macro_name, 'offset') -%}
    {%- set week_starts = window_tvf._week_starts() -%}
    {%- if week_start is not none -%}
        {%- if week_start is not string or (week_start | lower) not in week_starts -%}
            {{ window_tvf._argument_error(macro_name, 'week_start', week_start,
                "expected a week day: monday, tuesday, wednesday, thursday, friday, saturday or sunday") }}
        {%- elif not period.weeks -%}
            {{ window_tvf._argument_error(macro_name, 'week_start', week_start,
                "week_start applies to windows whose grid is in weeks (a size such as '1 week', or a HOP slide in weeks); "
                ~ "drop it, or give the size in weeks") }}
        {%- endif -%}
    {%- endif -%}
    {#- An offset acts modulo the period (Flink's documented offsets), reduced here so no bigint can wrap. -#}
    {%- if period.months -%}
        {{ return({'unit': 'months', 'period': period.months, 'offset': shift.months % period.months, 'shift': shift.micros}) }}
    {%- elif shift.months -%}
        {{ window_tvf._argument_error(macro_name, 'offset', offset,
            "an offset in months, quarters or years needs windows whose size is in months, quarters or years; "
            ~ "give a fixed offset such as '6 hours' or '2 days'") }}
    {%- endif -%}
    {%- set week_alignment = week_starts[(week_start or 'monday') | lower] * 86400000000 if period.weeks else 0 -%}
    {{ return({'unit': 'micros', 'period': period.micros, 'offset': (shift.micros + week_alignment) % period.micros,
        'shift': 0}) }}
{% endmacro %}

{#- The grid position of wall-clock microseconds `wall`. -#}
{% macro _grid_position(grid, wall) -%}
    {%- if grid.unit == 'micros' -%}
        {{ wall }}
    {%- else -%}
        {{ window_tvf._month_number('(' ~ wall ~ (' - ' ~ grid.shift ~ 'L' if grid.shift else '') ~ ')') }}
    {%- endif -%}
{%- endmacro %}

{#-
    The start of the grid cell holding `position` (in the grid's unit). Positions here are never NULL (rows without a
    time are filtered first), and the coalesce tells Spark so: a join or filter on the window columns would otherwise
    make it infer `is not null` on them and push that below, a time conversion per row.
-#}
{% macro _grid_cell_start(grid, position) -%}
    coalesce({{ window_tvf._grid_floor(position, grid.period, grid.offset) }}, 0)
{%- endmacro %}

{#- Wall-clock microseconds of a grid position. -#}
{% macro _grid_wall(grid, position) -%}
    {%- if grid.unit == 'micros' -%}
        {{ position }}
    {%- else -%}
        (unix_date(add_months(date'1970-01-01', cast({{ position }} as int))) * 86400000000L
            {{- ' + ' ~ grid.shift ~ 'L' if grid.shift }})
    {%- endif -%}
{%- endmacro %}

{#- The month number (0 = January 1970, -1 = December 1969) of wall-clock microseconds `wall`. -#}
{% macro _month_number(wall) -%}
    {%- set day = 'date_from_unix_date(cast((' ~ wall ~ ' - pmod(' ~ wall ~ ', 86400000000L)) div 86400000000L as int))' -%}
    cast((year({{ day }}) - 1970) * 12 + month({{ day }}) - 1 as bigint)
{%- endmacro %}


{#- A HOP's slide and size: both calendar (months, quarters, years) or both fixed. -#}
{% macro _hop_spans(slide, size, macro_name) %}
    {%- set slide_span = window_tvf._positive_span(slide, macro_name, 'slide') -%}
    {%- set size_span = window_tvf._positive_span(size, macro_name, 'size') -%}
    {%- if (slide_span.months > 0) != (size_span.months > 0) -%}
        {{ window_tvf._argument_error(macro_name, 'size', size,
            "a HOP's slide and size must both be calendar lengths (months, quarters, years) or both fixed lengths "
            ~ "(milliseconds to weeks); the slide is " ~ (slide | tojson)) }}
    {%- endif -%}
    {%- set slide_units, size_units = slide_span.months or slide_span.micros, size_span.months or size_span.micros -%}
    {%- do window_tvf._windows_per_row((size_units + slide_units - 1) // slide_units, macro_name, 'size', size,
        "size / slide with slide " ~ (slide | tojson)) -%}
    {{ return([slide_span, size_span]) }}
{% endmacro %}

{#-
    The grid a window spec's windows start on (a tumble's and cumulate's size, a hop's slide) and the window size in
    the grid's unit (months or microseconds): [grid, size].
-#}
{% macro _spec_grid(spec, macro_name) %}
    {%- if spec.tvf == 'hop' -%}
        {%- set period_span, size_span = window_tvf._hop_spans(spec.slide, spec.size, macro_name) -%}
    {%- elif spec.tvf == 'cumulate' -%}
        {%- set size_span = window_tvf._cumulate_spans(spec.step, spec.size, macro_name)[1] -%}
        {%- set period_span = size_span -%}
    {%- else -%}
        {%- set size_span = window_tvf._positive_span(spec.size, macro_name, 'size') -%}
        {%- set period_span = size_span -%}
    {%- endif -%}
    {%- set grid = window_tvf._grid(period_span, spec.get('offset'), spec.get('week_start'), macro_name) -%}
    {{ return([grid, size_span.months if grid.unit == 'months' else size_span.micros]) }}
{% endmacro %}

{#-
    A CUMULATE's step and size, where the step must divide the size on the calendar: a fixed size by a fixed step
    (Flink's rule); a calendar size by a calendar step that divides it (months divide quarters and years) or by a
    fixed step that divides a day (so it divides every month).
-#}
{% macro _cumulate_spans(step, size, macro_name='cumulate') %}
    {%- set step_span = window_tvf._positive_span(step, macro_name, 'step') -%}
    {%- set size_span = window_tvf._positive_span(size, macro_name, 'size') -%}
    {%- if size_span.months and step_span.months -%}
        {%- set divides = size_span.months % step_span.months == 0 -%}
    {%- elif size_span.months -%}
        {%- set divides = 86400000000 % step_span.micros == 0 -%}
    {%- else -%}
        {%- set divides = not step_span.months and size_span.micros % step_span.micros == 0 -%}
    {%- endif -%}
    {%- if not divides -%}
        {{ window_tvf._argument_error(macro_name, 'size', size,
            "it must be a whole multiple of step " ~ (step | tojson) ~ " on the calendar (Flink's rule for CUMULATE): "
            ~ "a fixed size a multiple of a fixed step; months, quarters and years a multiple of a step in months, or "
            ~ "any of them with a step that divides a day ('1 day', '1 hour'); 7 days divide a week, not a month") }}
    {%- endif -%}
    {%- set steps = size_span.months // step_span.months if step_span.months
        else (size_span.months * 31 * 86400000000 or size_span.micros) // step_span.micros -%}
    {%- do window_tvf._windows_per_row(steps, macro_name, 'step', step, "size / step with size " ~ (size | tojson)) -%}
    {{ return([step_span, size_span]) }}
{% endmacro %}

{#-
    The grid of a CUMULATE's steps: months when the step is in months; otherwise fixed steps aligned with the periods
    (on a fixed size grid its offset; within calendar periods the offset's fixed part, since a step that divides a day
    puts every month start on its grid).
-#}
{% macro _cumulate_step_grid(grid, step_span) %}
    {%- if step_span.months -%}
        {{ return({'unit': 'months', 'period': step_span.months, 'offset': grid.offset, 'shift': grid.shift}) }}
    {%- endif -%}
    {{ return({'unit': 'micros', 'period': step_span.micros, 'offset': grid.offset if grid.unit == 'micros' else grid.shift,
        'shift': 0}) }}
{% endmacro %}

{#-
    The period (size-grid cell) holding `position` (a position on the step grid: a row's, or a step slice's start):
    {'start': its start on the size grid, 'end': its end on the step grid}, as SQL.
-#}
{% macro _cumulate_period(grid, step_grid, position) %}
    {%- if grid.unit == step_grid.unit -%}
        {%- set start = window_tvf._grid_cell_start(grid, position) -%}
        {{ return({'start': start, 'end': '(' ~ start ~ ') + ' ~ grid.period}) }}
    {%- endif -%}
    {#- Calendar periods, fixed steps: the month of the position, then the end of its period in microseconds. -#}
    {%- set start = window_tvf._grid_cell_start(grid, window_tvf._grid_position(grid, position)) -%}
    {{ return({'start': start, 'end': window_tvf._grid_wall(grid, '(' ~ start ~ ') + ' ~ grid.period)}) }}
{% endmacro %}

{#-
    A row of a HOP or CUMULATE is repeated once per window that holds it. Past a million windows per row the output
    (and Spark's array of window starts) stops being practical; say so at compile time instead of failing on an
    executor.
-#}
{% macro _windows_per_row(count, macro_name, argument, value, ratio) %}
    {%- if count > 1000000 -%}
        {{ window_tvf._argument_error(macro_name, argument, value,
            "each row would be in up to " ~ count ~ " windows (" ~ ratio ~ "); at most 1,000,000 are allowed: "
            ~ "use a larger slide or step") }}
    {%- endif -%}
{% endmacro %}
