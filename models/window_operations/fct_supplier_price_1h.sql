-- Cascading windows: the 5 minute sums' window_time is the time column of the 1 hour windows (as in Flink, the
-- first step's window columns are renamed or dropped before the next windowing TVF).
with supplier_price_5m as (
    select
        window_time as rowtime,
        supplier_id,
        price
    from {{ ref('int_supplier_price_5m') }}
)

{{ window_tvf.window_aggregate(
    'supplier_price_5m',
    window={'tvf': 'tumble', 'timecol': 'rowtime', 'size': '1 hour'},
    group_by='supplier_id',
    aggregates={'price': 'sum(price)'},
) }}
