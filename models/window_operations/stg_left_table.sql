select
    row_time,
    num,
    id
from {{ ref('left_table') }}
