-- Nexmark's `person` view (ddl_views.sql): the person events of the stream.
select
    person.id,
    person.name,
    person.email_address,
    person.credit_card,
    person.city,
    person.state,
    date_time,
    person.extra
from {{ ref('nexmark_events') }}
where event_type = 0
