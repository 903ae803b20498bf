-- Process-style windows: every session's bids as an ordered array, here reduced to the item sequence.
with supplier_sessions as (
    {{ window_tvf.window_collect(
        ref('stg_bid_with_supplier'),
        window={'tvf': 'session', 'timecol': 'bidtime', 'gap': '5 minutes', 'partition_by': 'supplier_id'},
        partition_by='supplier_id',
    ) }}
)

select
    window_start,
    window_end,
    window_time,
    supplier_id,
    array_join(transform(elements, bid -> bid.item), ',') as items,
    element_count
from supplier_sessions
