-- Nexmark q19, Auction TOP-10 Price: the 10 highest bids of each auction, numbered. Nexmark's SQL
-- (queries/q19.sql): ROW_NUMBER() OVER (PARTITION BY auction ORDER BY price DESC) <= 10, which orders bids of equal
-- price arbitrarily; window_tvf.topn breaks such ties by the whole row.
{{ window_tvf.topn(ref('stg_nexmark__bid'), 10, ['auction'], ['price desc'], rank_column='rank_number') }}
