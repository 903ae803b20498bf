{{ window_tvf.hop(ref('stg_bid'), 'bidtime', '5 minutes', '10 minutes') }}
