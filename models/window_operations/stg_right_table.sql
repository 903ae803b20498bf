select
    row_time,
    num,
    id
from {{ ref('right_table') }}
