{#-
    A dbt var that a scheduler passes in the environment instead of `--vars`: the environment variable
    WINDOW_TVF_VAR_<NAME> (the name in upper case), holding the value as JSON, else var(name[, default]).

    Why: dbt re-parses the whole project whenever `--vars` differ from the last run's ("Unable to do partial parsing
    because config vars ... have changed"), and a data interval's bounds differ on every run. An environment
    variable read through env_var() is tracked per file instead: when its value changes, dbt re-parses only the
    files that read it (dbt.parser.partial). For a project of 80 models that is about a second instead of 5-12.
-#}
{% macro scheduled_var(name, default=none) %}
    {%- if name is not string or name == '' -%}
        {{ window_tvf._argument_error('scheduled_var', 'name', name, "expected the name of a dbt var") }}
    {%- endif -%}
    {%- set variable = 'WINDOW_TVF_VAR_' ~ (name | upper) -%}
    {%- set passed = env_var(variable, '') | trim -%}
    {%- set value = fromjson(passed) if passed != '' else none -%}
    {%- if value is none and passed not in ('', 'null') -%}
        {{ window_tvf._compile_error(
            "window_tvf.scheduled_var: environment variable " ~ variable ~ " is " ~ passed
            ~ ": it must hold the value of var('" ~ name ~ "') as JSON (a string in double quotes)") }}
    {%- endif -%}
    {#- Empty and JSON null count as unset, as in the yml where clauses (fromjson(env_var(...)) or var(...), whose
        `or` also passes over false, 0 and []: they read only the interval's bounds and lateness, strings). -#}
    {%- if value is not none -%}
        {{ return(value) }}
    {%- endif -%}
    {{ return(var(name) if default is none else var(name, default)) }}
{% endmacro %}
