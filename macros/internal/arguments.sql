{#
    Argument checking shared by the public macros. Every error names the macro, the argument, the value given
    and what is allowed, and is raised while dbt compiles the calling model.
#}

{% macro _argument_error(macro_name, argument, value, allowed) %}
    {#- Strings, lists and dicts are shown as JSON; relations and other objects as they render. -#}
    {%- set shown = value | tojson if value is string or (value is iterable and value.render is not defined) else value | string -%}
    {{ window_tvf._compile_error("window_tvf." ~ macro_name ~ ": argument '" ~ argument ~ "' got " ~ shown ~ "; " ~ allowed) }}
{% endmacro %}

{#-
    Fails the compilation with `message`. dbt 1.12 reports a microbatch batch that fails to compile as "ERROR" and
    logs why at debug level only, so in a batch the message is also logged where a person reads it.
-#}
{% macro _compile_error(message) %}
    {%- if execute and model is mapping and model.get('batch') -%}
        {%- do log(message, info=true) -%}
    {%- endif -%}
    {{ exceptions.raise_compiler_error(message) }}
{% endmacro %}


{#- Column names: plain identifiers, or backquoted Spark identifiers for names with other characters. -#}
{% macro _column_name(value, macro_name, argument) %}
    {%- if value is not string or not modules.re.match("^([A-Za-z_][A-Za-z0-9_]*|`([^`]|``)+`)$", value) -%}
        {{ window_tvf._argument_error(macro_name, argument, value,
            "expected a column name: an identifier such as 'bidtime' (letters, digits, _) or a backquoted name") }}
    {%- endif -%}
    {{ return(value) }}
{% endmacro %}

{% macro _column_names(value, macro_name, argument) %}
    {%- set names = [] if value is none else ([value] if value is string else value) -%}
    {%- if names is string or names is mapping or names is not iterable -%}
        {{ window_tvf._argument_error(macro_name, argument, value, "expected a column name or a list of column names") }}
    {%- endif -%}
    {%- for name in names -%}
        {%- do window_tvf._column_name(name, macro_name, argument) -%}
    {%- endfor -%}
    {{ return(names | list) }}
{% endmacro %}


{#-
    The relation: a ref()/source() relation, or a string naming a table or CTE. Relations are checked against the
    warehouse (the time column exists and is a timestamp, no window column would be duplicated), and so are a
    schema-qualified name of a table the warehouse has (taken as that relation) and a CTE of the model that can be
    described (_known_columns); any other name can only be checked for its form, and Spark reports unknown columns
    when the query runs.
-#}
{% macro _relation(value, macro_name) %}
    {%- if value is string and value in context.get('window_tvf__batch_relations', {}) -%}
        {#- A relation as a microbatch batch reads it (macros/internal/microbatch.sql). -#}
        {{ return(value) }}
    {%- elif value is string -%}
        {%- if not modules.re.match("^\s*[A-Za-z_`][A-Za-z0-9_`.]*\s*$", value) -%}
            {{ window_tvf._argument_error(macro_name, 'relation', value,
                "expected a ref()/source() relation or the name of a table or CTE, such as 'bids' or 'analytics.bids'") }}
        {%- endif -%}
        {#- A schema-qualified name of a table the warehouse has is that relation: its columns and types are known. -#}
        {%- set table = window_tvf._warehouse_table(value) -%}
        {{ return(value | trim if table is none else table) }}
    {%- elif value.render is not defined or value.identifier is not defined -%}
        {{ window_tvf._argument_error(macro_name, 'relation', value, "expected a ref()/source() relation or a table/CTE name") }}
    {%- endif -%}
    {{ return(value) }}
{% endmacro %}

{% macro _unquoted(name) %}
    {{ return(name[1:-1].replace('``', '`') if name.startswith('`') else name) }}
{% endmacro %}

{#-
    Columns of a relation known to the warehouse, or of a CTE of the model (described with the model's WITH clause
    up to it: cte_sources.sql), as {lower-case name: data type}; empty when they cannot be known: another name (a
    temporary view's, a CTE that cannot be described safely), or a relation that dbt renders as a CTE (ephemeral
    models and unit-test fixtures, `__dbt__cte__*`).
    Read once per relation and model (kept in the model's context): a macro checks columns and reads the time
    column's type, and window operations call several macros on the same relation. The names as the warehouse
    spells them: _known_column_names.
-#}
{% macro _known_columns(relation) %}
    {%- set cache = context.get('window_tvf__known_columns', {}) -%}
    {%- set key = relation | string -%}
    {%- if key in cache -%}{{ return(cache[key]) }}{%- endif -%}
    {%- if not execute or (relation is not string and (relation.identifier or '').startswith('__dbt__cte__')) -%}
        {{ return({}) }}
    {%- endif -%}
    {%- set columns, names = {}, [] -%}
    {%- if relation is string -%}
        {#- A CTE of the model: described with the model's WITH clause up to it, when that is safe (cte_sources.sql). -#}
        {%- for name, data_type in window_tvf._cte_columns(relation) or [] -%}
            {%- do columns.update({name | lower: data_type | lower}) -%}
            {%- do names.append(name) -%}
        {%- endfor -%}
    {%- else -%}
        {#- In a microbatch batch a ref() carries dbt's event-time filter, which adapters render into `describe`. -#}
        {%- set unfiltered = relation.incorporate(event_time_filter=none) if relation.event_time_filter is defined
            and relation.event_time_filter else relation -%}
        {%- for column in adapter.get_columns_in_relation(unfiltered) -%}
            {%- do columns.update({column.name | lower: column.data_type | lower}) -%}
            {%- do names.append(column.name) -%}
        {%- endfor -%}
    {%- endif -%}
    {%- set names_cache = context.get('window_tvf__known_column_names', {}) -%}
    {%- do cache.update({key: columns}) -%}
    {%- do names_cache.update({key: names}) -%}
    {%- do context.update({'window_tvf__known_columns': cache, 'window_tvf__known_column_names': names_cache}) -%}
    {{ return(columns) }}
{% endmacro %}

{#-
    The column names of `relation` in order and spelled as in the warehouse (case kept); [] when unknown. A microbatch
    batch's relation (macros/internal/microbatch.sql) has the columns of the relation it filters.
-#}
{% macro _known_column_names(relation) %}
    {%- set relation = context.get('window_tvf__batch_relations', {}).get(relation, relation) if relation is string
        else relation -%}
    {%- do window_tvf._known_columns(relation) -%}
    {{ return(context.get('window_tvf__known_column_names', {}).get(relation | string, [])) }}
{% endmacro %}

{#-
    Named columns (one name or a list) must be among `columns`, the relation's columns as _known_columns returns
    them; when those are unknown (a CTE name) nothing is checked and Spark reports an unknown column when the
    query runs. Returns the names in lower case, unquoted.
-#}
{% macro _existing_columns(names, columns, relation, macro_name, argument) %}
    {%- set found = [] -%}
    {%- for name in window_tvf._column_names(names, macro_name, argument) -%}
        {%- set key = window_tvf._unquoted(name) | lower -%}
        {%- if columns and key not in columns -%}
            {{ window_tvf._argument_error(macro_name, argument, name,
                "no such column in " ~ relation ~ "; its columns are: " ~ (columns.keys() | join(', '))) }}
        {%- endif -%}
        {%- do found.append(key) -%}
    {%- endfor -%}
    {{ return(found) }}
{% endmacro %}

{#-
    `window_columns`: the columns the calling macro adds to its input; an input that already has one of them is
    rejected (none: the window TVFs' window_start, window_end and window_time; count_window adds its own two).
-#}
{% macro _check_columns(relation, macro_name, time_column, other_columns={}, window_columns=none) %}
    {%- set window_columns = ['window_start', 'window_end', 'window_time'] if window_columns is none else window_columns -%}
    {%- set columns = window_tvf._known_columns(relation) -%}
    {%- if columns -%}
        {%- set name = window_tvf._unquoted(time_column) | lower -%}
        {%- if name not in columns -%}
            {{ window_tvf._argument_error(macro_name, 'timecol', time_column,
                "no such column in " ~ relation ~ "; its columns are: " ~ (columns.keys() | join(', '))) }}
        {%- elif columns[name] not in ('timestamp', 'timestamp_ntz') -%}
            {{ window_tvf._argument_error(macro_name, 'timecol', time_column,
                "column is of type " ~ columns[name] ~ "; the time column must be a timestamp or timestamp_ntz "
                ~ "(cast it first, e.g. to_timestamp(" ~ name ~ "))") }}
        {%- endif -%}
        {%- for argument, names in other_columns.items() -%}
            {%- do window_tvf._existing_columns(names, columns, relation, macro_name, argument) -%}
        {%- endfor -%}
        {%- for column in window_columns if column in columns -%}
            {{ window_tvf._argument_error(macro_name, 'relation', relation | string,
                "it already has a column named " ~ column ~ ", which the window columns would duplicate; rename it first "
                ~ "(as Flink's cascading example does: select window_time as rowtime, ...)") }}
        {%- endfor -%}
    {%- endif -%}
{% endmacro %}


{#-
    Whole numbers such as N of a Top-N or a count window: an integer >= `minimum` (not a bool or string), and at
    most bigint's maximum, so the SQL literal is a bigint (Spark would read a larger one as a decimal, or fail).
-#}
{% macro _positive_integer(value, macro_name, argument, minimum=1) %}
    {%- if value is not number or value is sameas true or value is sameas false or (value | string | lower) in ('nan', 'inf', '-inf')
        or value != (value | int) or value < minimum or value > 9223372036854775807 -%}
        {{ window_tvf._argument_error(macro_name, argument, value,
            "expected a whole number >= " ~ minimum ~ " (and at most 9223372036854775807, bigint's maximum)") }}
    {%- endif -%}
    {{ return(value | int) }}
{% endmacro %}


{#- Join keys: names present on both sides, or [left column, right column] pairs. Returns [[left, right], ...]. -#}
{% macro _join_keys(on, macro_name) %}
    {%- set allowed = "expected a list of column names on both sides, or [left column, right column] pairs, e.g. ['item'] or [['item', 'product']]" -%}
    {%- set items = [on] if on is string else on -%}
    {%- if items is none or items is mapping or items is not iterable or (items | length) == 0 -%}
        {{ window_tvf._argument_error(macro_name, 'on', on, allowed) }}
    {%- endif -%}
    {%- set pairs = [] -%}
    {%- for item in items -%}
        {%- set pair = [item, item] if item is string else item -%}
        {%- if pair is mapping or pair is not iterable or (pair | length) != 2 -%}
            {{ window_tvf._argument_error(macro_name, 'on', item, allowed) }}
        {%- endif -%}
        {%- do pairs.append([window_tvf._column_name(pair[0], macro_name, 'on'), window_tvf._column_name(pair[1], macro_name, 'on')]) -%}
    {%- endfor -%}
    {{ return(pairs) }}
{% endmacro %}

{#- An ISO 8601 time such as Airflow's '2026-01-01T02:00:00+00:00' (no zone: UTC), as an aware UTC datetime. -#}
{% macro _utc_instant(value, macro_name, argument) %}
    {%- set text = (value | string | trim).replace('Z', '+00:00').replace('z', '+00:00') -%}
    {%- set parsed = none -%}
    {%- if modules.re.match("^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?)?([+-]\d{2}:\d{2})?$", text) -%}
        {%- set parsed = modules.datetime.datetime.fromisoformat(text) -%}
    {%- endif -%}
    {%- if parsed is none -%}
        {{ window_tvf._argument_error(macro_name, argument, value,
            "expected an ISO 8601 time such as '2026-01-01T02:00:00+00:00' (Airflow's data_interval_start)") }}
    {%- endif -%}
    {{ return((parsed if parsed.tzinfo else parsed.replace(tzinfo=modules.pytz.utc)).astimezone(modules.pytz.utc)) }}
{% endmacro %}
