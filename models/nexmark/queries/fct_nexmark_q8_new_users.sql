-- Nexmark q8, Monitor New Users: the people who entered the system and created an auction in the same 10 second
-- period. Nexmark's SQL (queries/q8.sql): persons grouped by id, name and TUMBLE window, joined with sellers grouped
-- by seller and the same window, on id = seller. A window semi join is that join: each person's windowed row is
-- kept once when an auction of theirs falls in the same window.
{% set tumble_10s = {'tvf': 'tumble', 'timecol': 'date_time', 'size': '10 seconds'} %}

with sellers_in_window as (
    {{ window_tvf.window_join(ref('stg_nexmark__person'), tumble_10s, ref('stg_nexmark__auction'), tumble_10s,
        on=[['id', 'seller']], join_type='semi') }}
)

select
    id,
    name,
    window_start as stime
from sellers_in_window
group by id, name, window_start, window_end
