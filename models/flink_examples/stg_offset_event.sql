select event_time
from {{ ref('offset_event') }}
