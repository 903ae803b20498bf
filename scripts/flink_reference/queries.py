"""The window queries compared with Flink: each as Flink SQL and as the same window through window_tvf macros."""
AGG = "count(*) as n, sum(v) as total, min(v) as lo, max(v) as hi"
AGGS = "{'n': 'count(*)', 'total': 'sum(v)', 'lo': 'min(v)', 'hi': 'max(v)'}"

def flink_tvf(call):
    return (f"select id, cast(window_start as string), cast(window_end as string), "
            f"timestampdiff(second, to_timestamp_ltz(0, 3), window_time) from table({call})")

def flink_agg(call):
    return (f"select k, cast(window_start as string), cast(window_end as string), "
            f"timestampdiff(second, to_timestamp_ltz(0, 3), window_time), {AGG} "
            f"from table({call}) group by window_start, window_end, window_time, k")

def spark_cols(prefix_cols):
    return (f"select {prefix_cols}, cast(window_start as string), "
            f"cast(window_end as string), unix_seconds(window_time)")

TVFS = {
    # name: (flink call, window spec dict literal for the macros)
    "tumble_1h": ("tumble(table ev, descriptor(ts), interval '1' hour)", "{'tvf': 'tumble', 'timecol': 'ts', 'size': '1 hour'}"),
    "tumble_30m": ("tumble(table ev, descriptor(ts), interval '30' minute)", "{'tvf': 'tumble', 'timecol': 'ts', 'size': '30 minutes'}"),
    "tumble_1d": ("tumble(table ev, descriptor(ts), interval '1' day)", "{'tvf': 'tumble', 'timecol': 'ts', 'size': '1 day'}"),
    "tumble_2h_off1h": ("tumble(table ev, descriptor(ts), interval '2' hour, interval '1' hour)", "{'tvf': 'tumble', 'timecol': 'ts', 'size': '2 hours', 'offset': '1 hour'}"),
    "tumble_1d_offm6h": ("tumble(table ev, descriptor(ts), interval '1' day, interval '-6' hour)", "{'tvf': 'tumble', 'timecol': 'ts', 'size': '1 day', 'offset': '-6 hours'}"),
    "tumble_45m_off10m": ("tumble(table ev, descriptor(ts), interval '45' minute, interval '10' minute)", "{'tvf': 'tumble', 'timecol': 'ts', 'size': '45 minutes', 'offset': '10 minutes'}"),
    "hop_1h_15m": ("hop(table ev, descriptor(ts), interval '15' minute, interval '1' hour)", "{'tvf': 'hop', 'timecol': 'ts', 'slide': '15 minutes', 'size': '1 hour'}"),
    "hop_1d_6h": ("hop(table ev, descriptor(ts), interval '6' hour, interval '1' day)", "{'tvf': 'hop', 'timecol': 'ts', 'slide': '6 hours', 'size': '1 day'}"),
    "hop_50m_20m": ("hop(table ev, descriptor(ts), interval '20' minute, interval '50' minute)", "{'tvf': 'hop', 'timecol': 'ts', 'slide': '20 minutes', 'size': '50 minutes'}"),
    "hop_2h_30m_off10m": ("hop(table ev, descriptor(ts), interval '30' minute, interval '2' hour, interval '10' minute)", "{'tvf': 'hop', 'timecol': 'ts', 'slide': '30 minutes', 'size': '2 hours', 'offset': '10 minutes'}"),
    "hop_20m_1h_gaps": ("hop(table ev, descriptor(ts), interval '1' hour, interval '20' minute)", "{'tvf': 'hop', 'timecol': 'ts', 'slide': '1 hour', 'size': '20 minutes'}"),
    "cumulate_1h_1d": ("cumulate(table ev, descriptor(ts), interval '1' hour, interval '1' day)", "{'tvf': 'cumulate', 'timecol': 'ts', 'step': '1 hour', 'size': '1 day'}"),
    "cumulate_30m_2h": ("cumulate(table ev, descriptor(ts), interval '30' minute, interval '2' hour)", "{'tvf': 'cumulate', 'timecol': 'ts', 'step': '30 minutes', 'size': '2 hours'}"),
    "cumulate_6h_1d_off3h": ("cumulate(table ev, descriptor(ts), interval '6' hour, interval '1' day, interval '3' hour)", "{'tvf': 'cumulate', 'timecol': 'ts', 'step': '6 hours', 'size': '1 day', 'offset': '3 hours'}"),
}
SESSIONS = {
    "session_30m_by_k": ("session(table ev partition by k, descriptor(ts), interval '30' minute)", "{'tvf': 'session', 'timecol': 'ts', 'gap': '30 minutes', 'partition_by': 'k'}"),
    "session_90m": ("session(table ev, descriptor(ts), interval '90' minute)", "{'tvf': 'session', 'timecol': 'ts', 'gap': '90 minutes'}"),
}

def build(relation, zone_arg):
    """zone_arg: None (session zone) or a zone name passed as the macros' time_zone."""
    out = {}
    def spec(s):
        return s if zone_arg is None else s[:-1] + f", 'time_zone': '{zone_arg}'}}"
    for name, (call, s) in {**TVFS, **SESSIONS}.items():
        mode = "stream" if name.startswith("session") else "batch"
        out["tvf_" + name] = {
            "mode": mode, "flink": flink_tvf(call),
            "spark": spark_cols("id") + f" from ({{{{ window_tvf.apply_window({relation}, {spec(s)}) }}}}) as w",
        }
        for strategy in ["slices", "rows"]:
            gb = "'k'"
            out[f"agg_{strategy}_" + name] = {
                "mode": mode, "flink": flink_agg(call),
                "spark": spark_cols("k") + ", n, total, lo, hi from ({{ window_tvf.window_aggregate(" + relation + ", " + spec(s)
                         + f", {gb}, {AGGS}, strategy='{strategy}') }}}}) as w",
            }
    return out
