-- Invariant: rolling 5 minute sums into 1 hour windows through window_time gives the same rows as aggregating
-- the bids into 1 hour windows directly (5 minutes divides 1 hour, so every 5 minute window lies in one hour).
with direct as (
    {{ window_tvf.window_aggregate(
        ref('stg_bid_with_supplier'),
        {'tvf': 'tumble', 'timecol': 'bidtime', 'size': '1 hour'},
        'supplier_id',
        {'price': 'sum(price)'},
    ) }}
),

cascaded as (
    select * from {{ ref('fct_supplier_price_1h') }}
)

{{ window_tvf.rowset_diff('cascaded', 'direct', ['window_start', 'window_end', 'window_time', 'supplier_id', 'price']) }}
