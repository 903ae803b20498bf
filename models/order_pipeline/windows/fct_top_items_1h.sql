-- The three best-selling items of every hour (window Top-N over hourly sums; ties by item_id), recomputed like
-- the windows it ranks.
with hourly_item_sales as (
    {{ window_tvf.incremental_window_aggregate(
        ref('int_order_events_on_time'),
        window={'tvf': 'tumble', 'timecol': 'event_time', 'size': '1 hour'},
        group_by='item_id',
        aggregates={'quantity': 'sum(quantity)', 'orders': 'count(*)'},
        interval_start=window_tvf.scheduled_var('data_interval_start'),
        allowed_lateness=window_tvf.scheduled_var('allowed_lateness'),
        emit='on_update_flagged',
        interval_end=window_tvf.scheduled_var('data_interval_end'),
        arrival_partition={'column': 'arrival_hour', 'period': '1 hour'},
    ) }}
)

{{ window_tvf.window_topn(
    'hourly_item_sales',
    window=none,
    n=3,
    order_by=['quantity desc', 'item_id'],
    rank_column='item_rank',
) }}
