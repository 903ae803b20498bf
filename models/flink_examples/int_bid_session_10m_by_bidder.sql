{{ window_tvf.session(ref('stg_bid_by_bidder'), 'bidtime', '10 minutes', partition_by='bidder') }}
