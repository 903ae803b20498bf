{{ window_tvf.cumulate(ref('stg_bid'), 'bidtime', "INTERVAL '2' MINUTES", "INTERVAL '10' MINUTES") }}
