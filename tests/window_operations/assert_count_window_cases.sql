-- count_window per user: tumbling with and without the incomplete last window, sliding with early partial firings
-- and trailing rows, slide > size (rows in gaps are in no firing), slide = size given explicitly (the sliding form:
-- its incomplete firing holds the last size rows), and one unpartitioned sequence. Ties on event_time are broken
-- by the whole row, whose first column is event_id; NULL user_ids form their own partition; a NULL time is in none.
{%- set cases = [
    ('tumble_3', 3, none, ['user_id'], false),
    ('tumble_3_incomplete', 3, none, ['user_id'], true),
    ('slide_4_3', 4, 3, ['user_id'], false),
    ('slide_4_3_incomplete', 4, 3, ['user_id'], true),
    ('slide_2_3', 2, 3, ['user_id'], false),
    ('slide_2_3_incomplete', 2, 3, ['user_id'], true),
    ('slide_3_3_incomplete', 3, 3, ['user_id'], true),
    ('unpartitioned_5', 5, none, none, false),
] %}

with events as (
    select event_id, user_id, event_time, price
    from {{ ref('datastream_events') }}
    where case_name = 'count_windows'
),

actual as (
    {% for count_case, size, slide, keys, emit_incomplete in cases %}
    select '{{ count_case }}' as count_case, event_id, user_id, window_index, window_row_count
    from ({{ window_tvf.count_window('events', 'event_time', size, slide=slide, partition_by=keys,
        emit_incomplete=emit_incomplete) }}) as windowed
    {% if not loop.last %}union all{% endif %}
    {% endfor %}
),

expected as (
    select * from {{ ref('expected_count_windows') }}
)

{{ window_tvf.rowset_diff('actual', 'expected', ['count_case', 'event_id', 'user_id', 'window_index', 'window_row_count']) }}
