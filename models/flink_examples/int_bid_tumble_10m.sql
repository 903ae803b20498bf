{{ window_tvf.tumble(ref('stg_bid'), 'bidtime', '10 minutes') }}
