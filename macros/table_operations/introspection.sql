{#
    Flink's Table.describe() and EXPLAIN, as run-operations:
        dbt run-operation window_tvf.describe --args '{relation: stg_bid}'
        dbt run-operation window_tvf.explain --args '{model: fct_bid_tumble_10m_price}'
    `relation` is a model or seed name (resolved like ref()), or schema.table for any table.
#}
{% macro describe(relation) %}
    {%- set target_relation = window_tvf._resolve_relation(relation, 'describe') -%}
    {%- set columns = adapter.get_columns_in_relation(target_relation) -%}
    {%- if not columns -%}
        {{ window_tvf._argument_error('describe', 'relation', relation, "no such table or view in the warehouse (build it first)") }}
    {%- endif -%}
    {%- set width = columns | map(attribute='name') | map('length') | max -%}
    {%- set lines = [target_relation | string] -%}
    {%- for column in columns -%}
        {%- do lines.append('  ' ~ column.name.ljust(width) ~ '  ' ~ column.data_type) -%}
    {%- endfor -%}
    {{ log(lines | join('\n'), info=true) }}
    {{ return(lines | join('\n')) }}
{% endmacro %}


{#- Spark's plan (EXPLAIN FORMATTED, or `mode`: simple, extended, codegen, cost, formatted) of a model's SQL, compiled here. -#}
{% macro explain(model, mode='formatted') %}
    {%- if mode not in ('simple', 'extended', 'codegen', 'cost', 'formatted') -%}
        {{ window_tvf._argument_error('explain', 'mode', mode, "expected simple, extended, codegen, cost or formatted") }}
    {%- endif -%}
    {%- set nodes = graph.nodes.values() | selectattr('resource_type', 'equalto', 'model') | selectattr('name', 'equalto', model) | list -%}
    {%- if (nodes | length) != 1 -%}
        {{ window_tvf._argument_error('explain', 'model', model, "expected the name of one model of this project or its packages") }}
    {%- endif -%}
    {%- set compiled_sql = render(nodes[0].raw_code) -%}
    {%- set plan = run_query('explain ' ~ (mode if mode != 'simple' else '') ~ ' ' ~ compiled_sql).columns[0].values()[0] -%}
    {{ log(plan, info=true) }}
    {{ return(plan) }}
{% endmacro %}


{% macro _resolve_relation(name, macro_name) %}
    {%- if name is not string or not modules.re.match('^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)?$', name) -%}
        {{ window_tvf._argument_error(macro_name, 'relation', name, "expected a model or seed name, or schema.table") }}
    {%- endif -%}
    {%- if '.' in name -%}
        {%- set schema, identifier = name.split('.') -%}
        {{ return(api.Relation.create(schema=schema, identifier=identifier)) }}
    {%- endif -%}
    {{ return(ref(name)) }}
{% endmacro %}
