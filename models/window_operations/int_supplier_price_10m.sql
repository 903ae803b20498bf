{{ window_tvf.window_aggregate(
    ref('stg_bid_with_supplier'),
    window={'tvf': 'tumble', 'timecol': 'bidtime', 'size': '10 minutes'},
    group_by='supplier_id',
    aggregates={'price': 'sum(price)', 'bids': 'count(*)'},
) }}
