-- ROLLUP and CUBE over two keys within 10 minute windows.
{%- set window = {'tvf': 'tumble', 'timecol': 'bidtime', 'size': '10 minutes'} %}

with actual as (
    {% for grouping in ['rollup', 'cube'] %}
    select '{{ grouping }}' as grouping, window_start, supplier_id, item, price
    from ({{ window_tvf.window_aggregate(ref('bid_with_supplier'), window, ['supplier_id', 'item'], {'price': 'sum(price)'}, grouping=grouping) }}) as aggregated
    {% if not loop.last %}union all{% endif %}
    {% endfor %}
),

expected as (
    select * from {{ ref('expected_supplier_item_price_10m_rollup_cube') }}
)

{{ window_tvf.rowset_diff('actual', 'expected', ['grouping', 'window_start', 'supplier_id', 'item', 'price']) }}
