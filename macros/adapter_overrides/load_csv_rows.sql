{#
    Seed rows as SQL literals. dbt-spark 1.11's session connection formats bindings itself: None becomes the
    string 'None' (not NULL), datetimes are cut to milliseconds and a quote inside a value breaks the statement.
    This override renders each value as an escaped literal instead. dbt picks it up when window_tvf is the root
    project; a project that installs the package can opt in with
    `dispatch: [{macro_namespace: dbt, search_order: [<its name>, window_tvf, dbt]}]`.
#}
{% macro spark__load_csv_rows(model, agate_table) %}
    {%- set column_override = model['config'].get('column_types', {}) -%}
    {%- set statements = [] -%}
    {%- for chunk in agate_table.rows | batch(get_batch_size()) -%}
        {%- set sql -%}
            insert into {{ this.render() }} values
            {% for row in chunk -%}
                (
                {%- for col_name in agate_table.column_names -%}
                    {%- set type = column_override.get(col_name, adapter.convert_type(agate_table, loop.index0)) -%}
                    cast({{ window_tvf._sql_literal(row[loop.index0]) }} as {{ type }})
                    {%- if not loop.last %}, {% endif -%}
                {%- endfor -%}
                ){%- if not loop.last %},{% endif %}
            {% endfor -%}
        {%- endset -%}
        {%- do adapter.add_query(sql, abridge_sql_log=True) -%}
        {%- if loop.first -%}{%- do statements.append(sql) -%}{%- endif -%}
    {%- endfor -%}
    {{ return(statements[0] if statements else '') }}
{% endmacro %}
