-- Window Top-N and deduplication on ties, NULL scores (asc: NULLs first, desc: NULLs last, unless told), NULL
-- keys (their own group), a one-row window, an empty window (no output) and identical rows arriving out of order.
{%- set window = {'tvf': 'tumble', 'timecol': 'event_time', 'size': '10 minutes'} %}
{%- set topn_variants = [
    ('top2_score_desc', ['score desc']),
    ('top2_score_asc', ['score asc']),
    ('top2_score_asc_nulls_last', ['score asc nulls last']),
] %}

with actual as (
    {% for operation, order_by in topn_variants %}
    select '{{ operation }}' as operation, event_id, window_start, event_key, position
    from ({{ window_tvf.window_topn(ref('window_ops_edge_events'), window, 2, order_by, partition_by='event_key', rank_column='position') }}) as ranked
    union all
    {% endfor %}
    {% for keep in ['first', 'last'] %}
    select 'dedup_{{ keep }}' as operation, event_id, window_start, event_key, cast(null as int) as position
    from ({{ window_tvf.window_deduplicate(ref('window_ops_edge_events'), window, partition_by=['event_key'], keep=keep) }}) as deduplicated
    {% if not loop.last %}union all{% endif %}
    {% endfor %}
),

expected as (
    select * from {{ ref('expected_window_ops_edge_cases') }}
)

{{ window_tvf.rowset_diff('actual', 'expected', ['operation', 'event_id', 'window_start', 'event_key', 'position']) }}
