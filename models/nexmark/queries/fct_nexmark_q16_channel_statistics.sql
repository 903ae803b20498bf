-- Nexmark q16, Channel Statistics Report: q15 per channel and day, with the latest minute ('HH:mm') of the day
-- that saw a bid. Nexmark's SQL (queries/q16.sql) groups by channel, DATE_FORMAT(dateTime, 'yyyy-MM-dd'); here the
-- day is a 1 day TUMBLE window and count(*) FILTER is count_if.
{% set tumble_1d = {'tvf': 'tumble', 'timecol': 'date_time', 'size': '1 day'} %}
{% set ranks = {
    'rank1': 'price < 10000',
    'rank2': 'price >= 10000 and price < 1000000',
    'rank3': 'price >= 1000000',
} %}
{% set aggregates = {'minute': "max(date_format(date_time, 'HH:mm'))", 'total_bids': 'count(*)'} %}
{% for rank, condition in ranks.items() %}{% do aggregates.update({rank ~ '_bids': 'count_if(' ~ condition ~ ')'}) %}{% endfor %}
{% do aggregates.update({'total_bidders': 'count(distinct bidder)'}) %}
{% for rank, condition in ranks.items() %}{% do aggregates.update({rank ~ '_bidders': 'count(distinct bidder) filter (where ' ~ condition ~ ')'}) %}{% endfor %}
{% do aggregates.update({'total_auctions': 'count(distinct auction)'}) %}
{% for rank, condition in ranks.items() %}{% do aggregates.update({rank ~ '_auctions': 'count(distinct auction) filter (where ' ~ condition ~ ')'}) %}{% endfor %}

with daily as (
    {{ window_tvf.window_aggregate(ref('stg_nexmark__bid'), tumble_1d, 'channel', aggregates) }}
)

select
    channel,
    date_format(window_start, 'yyyy-MM-dd') as day,
    {%- for name in aggregates %}
    {{ name }}{{ ',' if not loop.last }}
    {%- endfor %}
from daily
