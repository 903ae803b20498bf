{#
    Ordering specs such as ['price desc', 'bidtime', 'score asc nulls last']: a column name, optional asc/desc,
    optional nulls first/last. Without a nulls clause Spark's default applies: NULLs first for asc, last for desc.
    Returns the SQL order-by items, with each column qualified by `qualifier`.
#}
{% macro _order_by(items, macro_name, argument, qualifier) %}
    {%- set items = [items] if items is string else items -%}
    {%- if items is none or items is mapping or items is not iterable or (items | length) == 0 -%}
        {{ window_tvf._argument_error(macro_name, argument, items,
            "expected a non-empty list such as ['price desc', 'bidtime asc nulls last']") }}
    {%- endif -%}
    {%- set rendered = [] -%}
    {%- for item in items -%}
        {%- set match = modules.re.match(
            "^\s*([A-Za-z_][A-Za-z0-9_]*|`(?:[^`]|``)+`)(?:\s+(asc|desc))?(?:\s+nulls\s+(first|last))?\s*$",
            item if item is string else '', modules.re.IGNORECASE) -%}
        {%- if not match -%}
            {{ window_tvf._argument_error(macro_name, argument, item,
                "each item is a column name with optional asc/desc and nulls first/last, e.g. 'price desc nulls last'") }}
        {%- endif -%}
        {%- do rendered.append(qualifier ~ '.' ~ match.group(1) ~ (' ' ~ match.group(2) | lower if match.group(2) else '')
            ~ (' nulls ' ~ match.group(3) | lower if match.group(3) else '')) -%}
    {%- endfor -%}
    {{ return(rendered) }}
{% endmacro %}

{% macro _order_by_columns(items) %}
    {%- set names = [] -%}
    {%- for item in ([items] if items is string else items) -%}
        {%- do names.append(item.split()[0]) -%}
    {%- endfor -%}
    {{ return(names) }}
{% endmacro %}
