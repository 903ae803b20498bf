-- Nexmark's `bid` view (ddl_views.sql): the bid events of the stream.
select
    bid.auction,
    bid.bidder,
    bid.price,
    bid.channel,
    bid.url,
    date_time,
    bid.extra
from {{ ref('nexmark_events') }}
where event_type = 2
