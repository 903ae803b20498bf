"""Durations in every documented form, and bad arguments rejected at compile time with a precise message."""

from __future__ import annotations

import pytest

from dbt_harness import DbtRun, compile_error, run_dbt

MINUTE = 60_000_000


def test_duration_forms() -> None:
    forms = {
        "10 minutes": 10 * MINUTE,
        "10 MINUTES": 10 * MINUTE,
        "1 minute": MINUTE,
        "1 hour": 60 * MINUTE,
        "2 Hours": 120 * MINUTE,
        "500 milliseconds": 500_000,
        "1 millisecond": 1_000,
        "500 ms": 500_000,
        "30 seconds": 30_000_000,
        "2 days": 2 * 24 * 60 * MINUTE,
        "1 day": 24 * 60 * MINUTE,
        "-6 minutes": -6 * MINUTE,
        "+4 minutes": 4 * MINUTE,
        "INTERVAL '10' MINUTES": 10 * MINUTE,
        "interval '1' hour": 60 * MINUTE,
        "INTERVAL '-6' MINUTE": -6 * MINUTE,
        "-INTERVAL '6' MINUTES": -6 * MINUTE,
        "INTERVAL '500' MILLISECOND": 500_000,
    }
    sql = "{% for d in " + repr(list(forms)) + " %}{{ window_tvf._parse_duration(d, 'tumble', 'size') }};{% endfor %}"
    run = run_dbt(["compile", "--quiet", "--inline", sql])
    assert run.success, run.messages
    parsed = run.result.results[0].node.compiled_code.strip().rstrip(";").split(";")
    assert dict(zip(forms, map(int, parsed))) == forms


def test_calendar_duration_forms() -> None:
    # (months, microseconds, written in weeks) of each form
    forms = {
        "1 week": (0, 7 * 24 * 60 * MINUTE, True),
        "2 WEEKS": (0, 14 * 24 * 60 * MINUTE, True),
        "1 month": (1, 0, False),
        "3 months": (3, 0, False),
        "1 mon": (1, 0, False),
        "1 quarter": (3, 0, False),
        "2 quarters": (6, 0, False),
        "1 year": (12, 0, False),
        "2 yrs": (24, 0, False),
        "-1 month": (-1, 0, False),
        "INTERVAL '1' MONTH": (1, 0, False),
        "INTERVAL '2' YEAR": (24, 0, False),
        "7 days": (0, 7 * 24 * 60 * MINUTE, False),
    }
    sql = ("{% for d in " + repr(list(forms)) + " %}{% set s = window_tvf._parse_span(d, 'tumble', 'size') %}"
           "{{ s.months }},{{ s.micros }},{{ s.weeks }};{% endfor %}")
    run = run_dbt(["compile", "--quiet", "--inline", sql])
    assert run.success, run.messages
    parsed = [item.split(",") for item in run.result.results[0].node.compiled_code.strip().rstrip(";").split(";")]
    assert dict(zip(forms, [(int(m), int(u), w == "True") for m, u, w in parsed])) == forms


def test_recompute_from_bound() -> None:
    """interval start - lateness - largest window, rounded down to the partition; none without an interval."""
    sql = (
        "{{ window_tvf.recompute_from('2026-01-01T02:00:00+00:00', '2 hours', '1 hour') }};"
        "{{ window_tvf.recompute_from('2026-01-01 02:30', '30 minutes', '0 seconds', 'hour') }};"
        "{{ window_tvf.recompute_from(none, '2 hours', '1 day') }}"
    )
    run = run_dbt(["compile", "--quiet", "--inline", sql])
    assert run.success, run.messages
    assert run.result.results[0].node.compiled_code.split(";") == [
        "date_trunc('day', timestamp'2025-12-31 23:00:00.000000Z')",
        "date_trunc('hour', timestamp'2026-01-01 02:00:00.000000Z')",
        "None",
    ]


BAD_CALLS = [
    pytest.param(
        "recompute_from('yesterday', '2 hours', '1 hour')",
        """window_tvf.recompute_from: argument 'interval_start' got "yesterday"; expected an ISO 8601 time""",
        id="recompute-from-not-a-time",
    ),
    pytest.param(
        "recompute_from('2026-01-01T02:00:00+00:00', '-2 hours', '1 hour')",
        """window_tvf.recompute_from: argument 'allowed_lateness' got "-2 hours"; it must be zero or a positive""",
        id="recompute-from-negative-lateness",
    ),
    pytest.param(
        "recompute_from('2026-01-01T02:00:00+00:00', '2 hours', '1 hour', 'minute')",
        """window_tvf.recompute_from: argument 'partition_granularity' got "minute"; expected one of hour, day""",
        id="recompute-from-granularity",
    ),
    pytest.param(
        "incremental_window_aggregate(ref('stg_bid'), TUMBLE_10M, 'item', {'n': 'count(*)'}, "
        "'2026-01-01T02:00:00Z', 'two hours')",
        """window_tvf.incremental_window_aggregate: argument 'allowed_lateness' got "two hours"; expected a duration""",
        id="incremental-bad-lateness",
    ),
    pytest.param(
        "incremental_window_aggregate(ref('stg_bid'), {'tvf': 'dynamic_session', 'timecol': 'bidtime', "
        "'gap_ms': '1000'}, 'item', {'n': 'count(*)'}, '2026-01-01T02:00:00Z', '2 hours')",
        "window_tvf.incremental_window_aggregate: argument 'window' got {\"gap_ms\": \"1000\", "
        "\"timecol\": \"bidtime\", \"tvf\": \"dynamic_session\"}; a dynamic_session's gap depends on each row",
        id="incremental-dynamic-session",
    ),
    pytest.param(
        "incremental_window_aggregate(ref('stg_bid'), TUMBLE_10M, 'item', {'n': 'count(*)'}, "
        "'2026-01-01T02:00:00Z', '2 hours', input_window_size='1 month')",
        """window_tvf.incremental_window_aggregate: argument 'input_window_size' got "1 month"; months, quarters and"""
        " years have no fixed length, and a fixed duration is needed here (up to weeks, e.g. '30 days')",
        id="incremental-calendar-input-window-size",
    ),
    pytest.param(
        "incremental_window_aggregate(ref('stg_bid'), TUMBLE_10M, 'item', {'n': 'count(*)'}, "
        "'2026-01-01T02:00:00Z', '2 hours', input_window_size='0 days')",
        """window_tvf.incremental_window_aggregate: argument 'input_window_size' got "0 days"; it must be a positive"""
        " duration",
        id="incremental-zero-input-window-size",
    ),
    pytest.param(
        "tumble(ref('stg_bid'), 'bidtime', '10 fortnights')",
        """window_tvf.tumble: argument 'size' got "10 fortnights"; unknown unit 'fortnights'""",
        id="unknown-unit",
    ),
    pytest.param(
        "tumble(ref('stg_bid'), 'bidtime', 'ten minutes')",
        """window_tvf.tumble: argument 'size' got "ten minutes"; expected a duration string""",
        id="not-a-duration",
    ),
    pytest.param(
        "tumble(ref('stg_bid'), 'bidtime', 10)",
        "window_tvf.tumble: argument 'size' got 10; expected a duration string",
        id="duration-not-a-string",
    ),
    pytest.param(
        "tumble(ref('stg_bid'), 'bidtime', '0 minutes')",
        """window_tvf.tumble: argument 'size' got "0 minutes"; it must be a positive duration""",
        id="zero-size",
    ),
    pytest.param(
        "hop(ref('stg_bid'), 'bidtime', '-5 minutes', '10 minutes')",
        """window_tvf.hop: argument 'slide' got "-5 minutes"; it must be a positive duration""",
        id="negative-slide",
    ),
    pytest.param(
        "hop(ref('stg_bid'), 'bidtime', '5 minutes', '0 ms')",
        """window_tvf.hop: argument 'size' got "0 ms"; it must be a positive duration""",
        id="zero-hop-size",
    ),
    pytest.param(
        "cumulate(ref('stg_bid'), 'bidtime', '0 seconds', '10 minutes')",
        """window_tvf.cumulate: argument 'step' got "0 seconds"; it must be a positive duration""",
        id="zero-step",
    ),
    pytest.param(
        "cumulate(ref('stg_bid'), 'bidtime', '3 minutes', '10 minutes')",
        """window_tvf.cumulate: argument 'size' got "10 minutes"; it must be a whole multiple of step "3 minutes\"""",
        id="cumulate-size-not-multiple-of-step",
    ),
    pytest.param(
        "session(ref('stg_bid'), 'bidtime', '0 minutes')",
        """window_tvf.session: argument 'gap' got "0 minutes"; it must be a positive duration""",
        id="zero-gap",
    ),
    pytest.param(
        "tumble(ref('stg_bid'), 'bidtime', '10 minutes', offset='6 fortnights')",
        """window_tvf.tumble: argument 'offset' got "6 fortnights"; unknown unit 'fortnights'""",
        id="bad-offset",
    ),
    pytest.param(
        "tumble(ref('stg_bid'), 'bidtime', '1 day', offset='1 month')",
        """window_tvf.tumble: argument 'offset' got "1 month"; an offset in months, quarters or years needs windows"""
        " whose size is in months, quarters or years",
        id="month-offset-for-fixed-size",
    ),
    pytest.param(
        "tumble(ref('stg_bid'), 'bidtime', '1 day', time_zone='America/NewYork')",
        """window_tvf.tumble: argument 'time_zone' got "America/NewYork"; unknown time zone: expected an IANA time"""
        " zone name such as 'America/New_York'",
        id="unknown-time-zone",
    ),
    pytest.param(
        "session(ref('stg_bid'), 'bidtime', '10 minutes', time_zone=5)",
        "window_tvf.session: argument 'time_zone' got 5; expected an IANA time zone name",
        id="time-zone-not-a-string",
    ),
    pytest.param(
        "window_aggregate(ref('expected_dst_windows'), {'tvf': 'tumble', 'timecol': 'window_end', 'size': '1 day', "
        "'time_zone': 'Europe/Paris'}, none, {'n': 'count(*)'})",
        """window_tvf.window_aggregate: argument 'time_zone' got "Europe/Paris"; the time column window_end is a"""
        " timestamp_ntz, whose values are wall-clock times already",
        id="time-zone-for-timestamp-ntz",
    ),
    pytest.param(
        "tumble(ref('stg_bid'), 'bidtime', '1 week', week_start='sun')",
        """window_tvf.tumble: argument 'week_start' got "sun"; expected a week day: monday, tuesday""",
        id="unknown-week-start",
    ),
    pytest.param(
        "cumulate(ref('stg_bid'), 'bidtime', '1 day', '1 month', week_start='sunday')",
        """window_tvf.cumulate: argument 'week_start' got "sunday"; week_start applies to windows whose grid is in weeks""",
        id="week-start-without-weeks",
    ),
    pytest.param(
        "hop(ref('stg_bid'), 'bidtime', '1 week', '1 month')",
        """window_tvf.hop: argument 'size' got "1 month"; a HOP's slide and size must both be calendar lengths"""
        " (months, quarters, years) or both fixed lengths",
        id="hop-mixes-calendar-and-fixed",
    ),
    pytest.param(
        "cumulate(ref('stg_bid'), 'bidtime', '7 days', '1 month')",
        """window_tvf.cumulate: argument 'size' got "1 month"; it must be a whole multiple of step "7 days" on the"""
        " calendar",
        id="cumulate-week-step-in-month",
    ),
    pytest.param(
        "cumulate(ref('stg_bid'), 'bidtime', '2 months', '1 quarter')",
        """window_tvf.cumulate: argument 'size' got "1 quarter"; it must be a whole multiple of step "2 months""",
        id="cumulate-months-not-dividing-quarter",
    ),
    pytest.param(
        "cumulate(ref('stg_bid'), 'bidtime', '1 month', '30 days')",
        """window_tvf.cumulate: argument 'size' got "30 days"; it must be a whole multiple of step "1 month""",
        id="cumulate-month-step-in-fixed-size",
    ),
    pytest.param(
        "cumulate(ref('stg_bid'), 'bidtime', '2 days', '1 month')",
        """window_tvf.cumulate: argument 'size' got "1 month"; it must be a whole multiple of step "2 days""",
        id="cumulate-step-not-dividing-a-day",
    ),
    pytest.param(
        "session(ref('stg_bid'), 'bidtime', '1 month')",
        """window_tvf.session: argument 'gap' got "1 month"; months, quarters and years have no fixed length""",
        id="calendar-gap",
    ),
    pytest.param(
        "window_topn(ref('stg_bid'), {'tvf': 'session', 'timecol': 'bidtime', 'gap': '1 hour', 'week_start': 'monday'}, 3, ['price desc'])",
        "unknown key 'week_start' for a session window; allowed: tvf, timecol, gap, partition_by, time_zone",
        id="window-spec-week-start-for-session",
    ),
    pytest.param(
        "window_join(ref('stg_bid'), TUMBLE_10M, ref('stg_bid'), {'tvf': 'tumble', 'timecol': 'bidtime', 'size': "
        "'10 minutes', 'time_zone': 'Asia/Kolkata'}, 'item')",
        "both sides of a window join must use the same window",
        id="join-different-time-zones",
    ),
    pytest.param(
        "tumble(ref('stg_bid'), 'no_such_column', '10 minutes')",
        """window_tvf.tumble: argument 'timecol' got "no_such_column"; no such column in""",
        id="missing-time-column",
    ),
    pytest.param(
        "hop(ref('stg_bid'), 'item', '5 minutes', '10 minutes')",
        """window_tvf.hop: argument 'timecol' got "item"; column is of type string; the time column must be a"""
        " timestamp or timestamp_ntz",
        id="time-column-not-a-timestamp",
    ),
    pytest.param(
        "tumble(ref('stg_bid'), 'bidtime) or 1=1 --', '10 minutes')",
        """window_tvf.tumble: argument 'timecol' got "bidtime) or 1=1 --"; expected a column name""",
        id="time-column-not-an-identifier",
    ),
    pytest.param(
        "session(ref('stg_bid'), 'bidtime', '10 minutes', partition_by=['item', 'item + 1'])",
        """window_tvf.session: argument 'partition_by' got "item + 1"; expected a column name""",
        id="partition-key-not-an-identifier",
    ),
    pytest.param(
        "session(ref('stg_bid'), 'bidtime', '10 minutes', partition_by='bidder')",
        """window_tvf.session: argument 'partition_by' got "bidder"; no such column in""",
        id="unknown-partition-key",
    ),
    pytest.param(
        "tumble('select * from bids', 'bidtime', '10 minutes')",
        """window_tvf.tumble: argument 'relation' got "select * from bids"; expected a ref()/source() relation or""",
        id="relation-not-a-name",
    ),
    pytest.param(
        "tumble(ref('int_bid_tumble_10m'), 'window_time', '1 hour')",
        """window_tvf.tumble: argument 'relation' got "window_tvf.int_bid_tumble_10m"; it already has a column named"""
        " window_start",
        id="window-columns-would-repeat",
    ),
    pytest.param(
        # a cascade is fine (the new windows' columns are named apart), but an aggregate reading window_time could
        # mean either window's
        "window_aggregate(ref('int_bid_tumble_10m'), {'tvf': 'hop', 'timecol': 'window_time', 'slide': '1 hour', "
        "'size': '2 hours'}, none, {'last': 'max(window_time)'})",
        """window_tvf.window_aggregate: argument 'relation' got "window_tvf.int_bid_tumble_10m"; it already has a column"""
        " named window_start, and an aggregate reads the windows' own window_start, window_end or window_time",
        id="cascade-aggregate-reads-window-columns",
    ),
    pytest.param(
        "window_aggregate(ref('stg_bid'), TUMBLE_10M, 'item', {'total': 'price'})",
        """window_tvf.window_aggregate: argument 'aggregates' got {"total": "price"}; expected {output name: aggregate call}""",
        id="aggregate-not-a-call",
    ),
    pytest.param(
        "window_aggregate(ref('stg_bid'), TUMBLE_10M, 'item', {'total': 'summ(price)'})",
        """window_tvf.window_aggregate: argument 'aggregates' got {"total": "summ(price)"}; expected {output name: aggregate call}""",
        id="unknown-aggregate-function",
    ),
    pytest.param(
        "window_aggregate(ref('stg_bid'), TUMBLE_10M, 'item', {'total': 'sum(price)'}, grouping='rolldown')",
        """window_tvf.window_aggregate: argument 'grouping' got "rolldown"; expected none, 'rollup', 'cube'""",
        id="unknown-grouping",
    ),
    pytest.param(
        "window_aggregate(ref('stg_bid'), TUMBLE_10M, 'item', {'total': 'sum(price)'}, grouping=[['price']])",
        """window_tvf.window_aggregate: argument 'grouping' got [["price"]]; grouping set column 'price' is not in group_by ["item"]""",
        id="grouping-set-outside-group-by",
    ),
    pytest.param(
        "window_aggregate(ref('stg_bid'), {'tvf': 'tumbel', 'timecol': 'bidtime', 'size': '1 hour'}, 'item', {'n': 'count(*)'})",
        "window_tvf.window_aggregate: argument 'window' got {\"size\": \"1 hour\", \"timecol\": \"bidtime\", \"tvf\": \"tumbel\"}; expected a window spec",
        id="unknown-tvf",
    ),
    pytest.param(
        "window_aggregate(ref('stg_bid'), TUMBLE_10M, 'item', {'n': 'count(*)'}, strategy='fast')",
        """window_tvf.window_aggregate: argument 'strategy' got "fast"; expected 'auto', 'slices' or 'rows'""",
        id="unknown-strategy",
    ),
    pytest.param(
        "window_aggregate(ref('stg_bid'), TUMBLE_10M, 'item', {'n': 'count(*)'}, keys=['item'])",
        """window_tvf.window_aggregate: argument 'keys' got ["item"]; expected 'few' (many rows per key and slice: """
        """aggregate partially before the shuffle), 'many' (a few rows per key and slice: shuffle the rows once, by """
        """key) or none (chosen from the relation's data when the model compiles)""",
        id="keys-not-few-or-many",
    ),
    pytest.param(
        "window_aggregate(ref('stg_bid'), {'tvf': 'hop', 'timecol': 'bidtime', 'slide': '5 minutes', 'size': '10 minutes'}, "
        "'item', {'n': 'median(price)'}, strategy='slices')",
        """window_tvf.window_aggregate: argument 'strategy' got "slices"; slicing needs""",
        id="slices-impossible",
    ),
    pytest.param(
        "window_aggregate(ref('stg_bid'), TUMBLE_10M, 'item', {'buyers': 'approx_distinct(price)'})",
        """window_tvf.window_aggregate: argument 'aggregates' got {"buyers": "approx_distinct(price)"}; column price is """
        """of type decimal(10,2); approx_distinct reads int, bigint, string or binary (what Spark's hll_sketch_agg """
        """takes): cast it first, e.g. approx_distinct(cast(price as string))""",
        id="sketch-of-a-type-hll-cannot-read",
    ),
    pytest.param(
        "window_aggregate(ref('stg_bid'), TUMBLE_10M, 'item', {'sketch': 'approx_distinct_union(item)'})",
        """window_tvf.window_aggregate: argument 'aggregates' got {"sketch": "approx_distinct_union(item)"}; column """
        """item is of type string; approx_distinct_union reads HLL sketches (binary, from approx_distinct_sketch or """
        """hll_sketch_agg)""",
        id="sketch-union-of-values",
    ),
    pytest.param(
        "window_aggregate(ref('stg_bid'), TUMBLE_10M, none, {'items': 'approx_distinct(item, 22)'})",
        """window_tvf.window_aggregate: argument 'aggregates' got {"items": "approx_distinct(item, 22)"}; the sketch """
        """precision lg_k of approx_distinct is "22"; expected an integer from 4 to 21 (log2 of the sketch's """
        """registers, Spark's hll_sketch_agg lgConfigK; default 12: relative standard error about 1.6%)""",
        id="sketch-precision-out-of-range",
    ),
    pytest.param(
        "window_aggregate(ref('stg_bid'), TUMBLE_10M, none, {'items': 'approx_distinct_sketch(item, high)'})",
        """window_tvf.window_aggregate: argument 'aggregates' got {"items": "approx_distinct_sketch(item, high)"}; the """
        """sketch precision lg_k of approx_distinct_sketch is "high"; expected an integer from 4 to 21""",
        id="sketch-precision-not-a-number",
    ),
    pytest.param(
        "window_aggregate(ref('stg_bid'), TUMBLE_10M, none, {'items': 'approx_distinct(distinct item)'})",
        """window_tvf.window_aggregate: argument 'aggregates' got {"items": "approx_distinct(distinct item)"}; """
        """approx_distinct takes a value (a column or expression of type int, bigint, string or binary) and """
        """optionally the sketch precision lg_k, an integer from 4 to 21 (default 12), e.g. approx_distinct(user_id) """
        """or approx_distinct(user_id, 14)""",
        id="sketch-with-distinct",
    ),
    pytest.param(
        "window_topn(ref('stg_bid'), {'tvf': 'hop', 'timecol': 'bidtime', 'size': '1 hour'}, 3, ['price desc'])",
        "a hop window needs 'slide' (required: timecol, slide, size)",
        id="window-spec-missing-argument",
    ),
    pytest.param(
        "window_topn(ref('stg_bid'), {'tvf': 'tumble', 'timecol': 'bidtime', 'size': '1 hour', 'gap': '1 hour'}, 3, ['price desc'])",
        "unknown key 'gap' for a tumble window; allowed: tvf, timecol, size, offset, time_zone, week_start",
        id="window-spec-unknown-key",
    ),
    pytest.param(
        "window_topn(ref('stg_bid'), TUMBLE_10M, 0, ['price desc'])",
        "window_tvf.window_topn: argument 'n' got 0; expected a whole number >= 1",
        id="topn-zero",
    ),
    pytest.param(
        "window_topn(ref('stg_bid'), TUMBLE_10M, '3', ['price desc'])",
        """window_tvf.window_topn: argument 'n' got "3"; expected a whole number >= 1""",
        id="topn-not-a-number",
    ),
    pytest.param(
        "window_topn(ref('stg_bid'), TUMBLE_10M, 3, ['price downward'])",
        """window_tvf.window_topn: argument 'order_by' got "price downward"; each item is a column name with optional asc/desc""",
        id="topn-bad-ordering",
    ),
    pytest.param(
        "window_deduplicate(ref('stg_bid'), TUMBLE_10M, 'item', keep='middle')",
        """window_tvf.window_deduplicate: argument 'keep' got "middle"; expected 'first' or 'last'""",
        id="dedup-bad-keep",
    ),
    pytest.param(
        "window_join(ref('stg_bid'), TUMBLE_10M, ref('stg_bid'), {'tvf': 'tumble', 'timecol': 'bidtime', 'size': '5 minutes'}, 'item')",
        "window_tvf.window_join: argument 'right_window' got {\"size\": \"5 minutes\", \"timecol\": \"bidtime\", \"tvf\": \"tumble\"}; both sides of a window join must use the same window",
        id="join-mismatched-windows",
    ),
    pytest.param(
        "window_join(ref('stg_bid'), TUMBLE_10M, ref('stg_bid'), {'tvf': 'hop', 'timecol': 'bidtime', 'slide': '10 minutes', 'size': '10 minutes'}, 'item')",
        "both sides of a window join must use the same window",
        id="join-different-tvfs",
    ),
    pytest.param(
        "window_join(ref('stg_bid'), TUMBLE_10M, ref('stg_bid'), TUMBLE_10M, 'item', join_type='outer')",
        """window_tvf.window_join: argument 'join_type' got "outer"; expected one of inner, left, right, full, semi, anti""",
        id="join-unknown-type",
    ),
    pytest.param(
        "window_join('bids', TUMBLE_10M, ref('stg_bid'), TUMBLE_10M, 'item')",
        """window_tvf.window_join: argument 'left' got "bids"; an inner or outer window join names every output column""",
        id="join-outer-needs-relations",
    ),
    pytest.param(
        "dynamic_session(ref('stg_bid'), 'bidtime', '60000; drop table x', 'item')",
        """window_tvf.dynamic_session: argument 'gap_ms' got "60000; drop table x"; expected a SQL expression""",
        id="dynamic-gap-not-an-expression",
    ),
    pytest.param(
        "window_partition_column('window_week')",
        """window_tvf.window_partition_column: argument 'column' got "window_week"; expected one of window_hour, window_date, window_month, window_year: the UTC hour, date, month or year of the window's time, the grains of dbt's batches""",
        id="partition-column-unknown",
    ),
    pytest.param(
        "window_partition_column('window_hour', 'hopped.window_time')",
        """window_tvf.window_partition_column: argument 'time_column' got "hopped.window_time"; expected a column name""",
        id="partition-column-time-not-a-column",
    ),
]


@pytest.mark.parametrize("call, message", BAD_CALLS)
def test_bad_arguments_fail_at_compile_time(built: DbtRun, call: str, message: str) -> None:
    tumble_10m = "{'tvf': 'tumble', 'timecol': 'bidtime', 'size': '10 minutes'}"
    assert message in compile_error("{{ window_tvf." + call.replace("TUMBLE_10M", tumble_10m) + " }}")
