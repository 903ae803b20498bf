-- fct_top_items_1h as a dbt microbatch model: the hourly sums of the batch's windows, then the three best-selling
-- items of each (window_topn of windowed rows: nothing more to read).
with hourly_item_sales as (
    {{ window_tvf.window_aggregate(
        ref('int_order_events_on_time'),
        window={'tvf': 'tumble', 'timecol': 'event_time', 'size': '1 hour',
            'arrival_partition': {'column': 'arrival_hour', 'period': '1 hour'},
            'allowed_lateness': window_tvf.scheduled_var('allowed_lateness')},
        group_by='item_id',
        aggregates={'quantity': 'sum(quantity)', 'orders': 'count(*)'},
        emit='on_update_flagged',
        watermark=window_tvf.interval_watermark(
            window_tvf.scheduled_var('data_interval_end'), window_tvf.scheduled_var('allowed_lateness')),
    ) }}
)

{{ window_tvf.window_topn(
    'hourly_item_sales',
    window=none,
    n=3,
    order_by=['quantity desc', 'item_id'],
    rank_column='item_rank',
) }}
