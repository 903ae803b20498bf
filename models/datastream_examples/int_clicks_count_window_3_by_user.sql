-- Flink: clicks.keyBy(user_id).countWindow(3). Each user's clicks in time order, cut into windows of 3; the
-- clicks after the last full window are not emitted (pass emit_incomplete=true to get them as a last window).
{{ window_tvf.count_window(ref('stg_datastream_clicks'), 'clicked_at', 3, partition_by='user_id') }}
