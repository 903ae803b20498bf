-- Nexmark q8 in plain Spark SQL, Nexmark's query with Spark's window() for TUMBLE: the reference for
-- fct_nexmark_q8_new_users.
with new_people as (
    select
        id,
        name,
        window(date_time, '10 seconds') as person_window
    from {{ ref('stg_nexmark__person') }}
    group by id, name, window(date_time, '10 seconds')
),

sellers as (
    select
        seller,
        window(date_time, '10 seconds') as auction_window
    from {{ ref('stg_nexmark__auction') }}
    group by seller, window(date_time, '10 seconds')
)

select
    new_people.id,
    new_people.name,
    new_people.person_window.start as stime
from new_people
inner join sellers
    on new_people.id = sellers.seller
    and new_people.person_window = sellers.auction_window
