{{ window_tvf.window_deduplicate(
    ref('stg_bid_with_supplier'),
    window={'tvf': 'tumble', 'timecol': 'bidtime', 'size': '10 minutes'},
    partition_by='supplier_id',
    keep='first',
) }}
