-- Nexmark q18, Find Last Bid: each bidder's last bid on each auction. Nexmark's SQL (queries/q18.sql): ROW_NUMBER()
-- OVER (PARTITION BY bidder, auction ORDER BY dateTime DESC) = 1, which picks any of the bids tied on the latest
-- time; window_tvf.deduplicate breaks such ties by the whole row, so the same bid is kept on every run.
{{ window_tvf.deduplicate(ref('stg_nexmark__bid'), ['bidder', 'auction'], ['date_time'], keep='last') }}
