-- Nexmark's `auction` view (ddl_views.sql): the auction events of the stream.
select
    auction.id,
    auction.item_name,
    auction.description,
    auction.initial_bid,
    auction.reserve,
    date_time,
    auction.expires,
    auction.seller,
    auction.category,
    auction.extra
from {{ ref('nexmark_events') }}
where event_type = 1
