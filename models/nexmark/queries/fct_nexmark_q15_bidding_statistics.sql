-- Nexmark q15, Bidding Statistics Report: per day, how many bids, bidders and auctions, in all and for three price
-- ranks (below 10,000; 10,000 to 1,000,000; 1,000,000 and more). Nexmark's SQL (queries/q15.sql) groups by
-- DATE_FORMAT(dateTime, 'yyyy-MM-dd') with count(*) FILTER (WHERE ...) and count(DISTINCT ...) FILTER (WHERE ...);
-- here the day is a 1 day TUMBLE window (calendar days of date_time's wall clock) and count(*) FILTER is count_if.
{% set tumble_1d = {'tvf': 'tumble', 'timecol': 'date_time', 'size': '1 day'} %}
{% set ranks = {
    'rank1': 'price < 10000',
    'rank2': 'price >= 10000 and price < 1000000',
    'rank3': 'price >= 1000000',
} %}
{% set aggregates = {'total_bids': 'count(*)'} %}
{% for rank, condition in ranks.items() %}{% do aggregates.update({rank ~ '_bids': 'count_if(' ~ condition ~ ')'}) %}{% endfor %}
{% do aggregates.update({'total_bidders': 'count(distinct bidder)'}) %}
{% for rank, condition in ranks.items() %}{% do aggregates.update({rank ~ '_bidders': 'count(distinct bidder) filter (where ' ~ condition ~ ')'}) %}{% endfor %}
{% do aggregates.update({'total_auctions': 'count(distinct auction)'}) %}
{% for rank, condition in ranks.items() %}{% do aggregates.update({rank ~ '_auctions': 'count(distinct auction) filter (where ' ~ condition ~ ')'}) %}{% endfor %}

with daily as (
    {{ window_tvf.window_aggregate(ref('stg_nexmark__bid'), tumble_1d, none, aggregates) }}
)

select
    date_format(window_start, 'yyyy-MM-dd') as day,
    {%- for name in aggregates %}
    {{ name }}{{ ',' if not loop.last }}
    {%- endfor %}
from daily
