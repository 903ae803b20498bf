{#-
    A SELECT that starts with a WITH clause of its own, made to stand wherever a SELECT can: as a model's whole
    statement, a CTE body, a subquery, and right after the analyst's own `with ... ,` list, where a second WITH
    would be a syntax error. Its CTEs are scoped to the subquery: they neither leak into the model's names nor collide
    with the analyst's (two calls in one model, an analyst's CTE named like one of them), on Spark 3.5 and 4.x
    alike (3.5 rejects a CTE body that redefines an outer name directly, AMBIGUOUS_ALIAS_IN_NESTED_CTE, but not in a
    subquery). Spark plans the extra projection away.

        {% call window_tvf._self_contained('gap_fill') %} with ... select ... {% endcall %}
-#}
{% macro _self_contained(name) -%}
select * from (
{{ caller() }}
) as window_tvf__{{ name }}
{%- endmacro %}
