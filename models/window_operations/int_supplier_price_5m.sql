-- First step of a cascade: 5 minute sums per supplier.
{{ window_tvf.window_aggregate(
    ref('stg_bid_with_supplier'),
    window={'tvf': 'tumble', 'timecol': 'bidtime', 'size': '5 minutes'},
    group_by='supplier_id',
    aggregates={'price': 'sum(price)'},
) }}
