-- Flink: clicks.keyBy(user_id).window(TumblingEventTimeWindows.of(30 minutes)).evictor(CountEvictor.of(2)):
-- only the last 2 clicks of each user and half hour reach the window function.
with clicks_30m as (
    {{ window_tvf.tumble(ref('stg_datastream_clicks'), 'clicked_at', '30 minutes') }}
),

last_2_clicks as (
    {{ window_tvf.evict_count('clicks_30m', 'clicked_at', 2, window_by=['window_start', 'window_end', 'user_id']) }}
)

select * from last_2_clicks
