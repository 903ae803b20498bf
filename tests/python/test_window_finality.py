"""Final and provisional windows (window_aggregate's `emit` and `watermark`, docs/final_windows.md), row for row
against an independent reference written from the definitions, not from the macros' SQL:

- windows: window_reference.py (zoneinfo wall clocks, calendar months) for tumble, hop and cumulate; sessions here
  (a row within `gap` of the previous one joins its session, window_end = last row + gap);
- a watermark W: a window is final when its window_time (window_end - 1 ms) is at or before W, as Flink fires a
  window when the watermark reaches window_end - 1 ms; a session when its window_time is before W (an event at its
  window_end, a gap after its last one, would still join it);
- W given as an ISO time, as a SQL expression, or derived from the data: the largest time less allowed_lateness.

Each query puts its watermark at a window_time t of its case's reference windows or 1 ms from it (a 15-minute tumble
at t and at t - 1 ms, sessions at t and at t + 1 ms), so the window at the boundary falls on the side the rule says.
Bad arguments fail at compile time naming macro, argument, value.
"""

from __future__ import annotations

import random
from datetime import datetime, timedelta, timezone

import pytest

import window_reference as ref
from dbt_harness import compile_error_line, run_dbt

SPLIT = "-- window_tvf test split --"
MS = timedelta(milliseconds=1)
NEW_YORK = "America/New_York"

# (name, window spec arguments besides tvf and timecol, zone, strategy)
CASES = [
    ("tumble_15m", {"tvf": "tumble", "size": "15 minutes"}, None, "auto"),
    ("hop_sliced", {"tvf": "hop", "slide": "15 minutes", "size": "1 hour"}, None, "slices"),
    ("hop_rows", {"tvf": "hop", "slide": "15 minutes", "size": "1 hour"}, None, "rows"),
    ("cumulate_1h_1d", {"tvf": "cumulate", "step": "1 hour", "size": "1 day"}, None, "auto"),
    ("day_new_york", {"tvf": "tumble", "size": "1 day"}, NEW_YORK, "auto"),
    ("month_to_date_new_york", {"tvf": "cumulate", "step": "1 day", "size": "1 month"}, NEW_YORK, "auto"),
    ("month_new_york", {"tvf": "tumble", "size": "1 month"}, NEW_YORK, "rows"),
    ("session_10m", {"tvf": "session", "gap": "10 minutes", "partition_by": "k"}, None, "auto"),
]


def events() -> list[tuple[str, datetime, int]]:
    """(key, time, value): millisecond times around New York's fall-back night (2026-11-01 05:00-07:00Z shows 01:00
    twice) and the October/November month end, visits that form sessions, and a key with a single row."""
    rng = random.Random(39)
    start = datetime(2026, 10, 31, 20, tzinfo=timezone.utc)
    rows = []
    for key in ("a", "b"):
        moment = start
        while moment < datetime(2026, 11, 2, 8, tzinfo=timezone.utc):
            moment += timedelta(milliseconds=rng.choice([rng.randrange(1, 9 * 60_000), rng.randrange(1, 6 * 3_600_000)]))
            rows.append((key, moment, rng.randrange(1, 10)))
    rows.append(("solo", datetime(2026, 11, 1, 5, 59, 59, 999000, tzinfo=timezone.utc), 7))
    return rows


EVENTS = events()
LATEST = max(time for _, time, _ in EVENTS)


def micros(instant: datetime) -> int:
    return round((instant - datetime(1970, 1, 1, tzinfo=timezone.utc)).total_seconds() * 1_000_000)


def wall_string(wall: datetime) -> str:
    """A wall time as Spark casts a timestamp_ntz to string (fraction without trailing zeros)."""
    text = wall.isoformat(sep=" ")
    return text.rstrip("0").rstrip(".") if "." in text else text


def reference_windows(arguments: dict, zone: str | None) -> dict[tuple, list]:
    """{(key, window_start wall, window_end wall, window_time instant): [count, sum]} from the definitions."""
    windows: dict[tuple, list] = {}
    if arguments["tvf"] == "session":
        gap = timedelta(minutes=10)
        for key in sorted({k for k, _, _ in EVENTS}):
            times = sorted((time, value) for k, time, value in EVENTS if k == key)
            sessions: list[list] = []
            for time, value in times:
                if sessions and time - sessions[-1][1] <= gap:
                    sessions[-1][1] = time
                    sessions[-1][2] += 1
                    sessions[-1][3] += value
                else:
                    sessions.append([time, time, 1, value])
            for first, last, count, total in sessions:
                wall = first.replace(tzinfo=None)
                end = (last + gap).replace(tzinfo=None)
                windows[(key, wall, end, last + gap - MS)] = [count, total]
        return windows
    spec = {k: v for k, v in arguments.items() if k != "tvf"}
    for key, time, value in EVENTS:
        for start, end, last in ref.window_rows(time, zone or "UTC", arguments["tvf"], **spec):
            found = windows.setdefault((key, start, end, last), [0, 0])
            found[0] += 1
            found[1] += value
    return windows


def is_final(tvf: str, window_time: datetime, watermark: datetime) -> bool:
    return window_time < watermark if tvf == "session" else window_time <= watermark


def boundary(windows: dict[tuple, list]) -> datetime:
    """A window_time of the reference's windows, at or before the latest event (so a lateness reaches it)."""
    times = sorted({window[3] for window in windows if window[3] <= LATEST})
    return times[len(times) // 2]


def window_spec(arguments: dict, zone: str | None, lateness: str | None = None) -> str:
    items = {**arguments, "timecol": "t", **({"time_zone": zone} if zone else {}),
             **({"allowed_lateness": lateness} if lateness else {})}
    return "{" + ", ".join(f"'{key}': '{value}'" for key, value in items.items()) + "}"


def iso(instant: datetime) -> str:
    return instant.strftime("%Y-%m-%dT%H:%M:%S.%f") + "Z"


# (case, emit, watermark form, watermark less the case's boundary window_time t): each case's watermark sits at a
# window_time of its own windows or 1 ms before it, so the window at the boundary is on the side the rule puts it.
QUERIES = [
    ("tumble_15m", "on_update_flagged", "iso", timedelta(0)),
    ("tumble_15m", "on_window_close", "iso", -MS),
    ("hop_sliced", "on_update_flagged", "expression", -MS),
    ("hop_rows", "on_update_flagged", "derived", timedelta(0)),
    ("cumulate_1h_1d", "on_window_close", "iso", timedelta(0)),
    ("day_new_york", "on_update_flagged", "iso", timedelta(0)),
    ("month_to_date_new_york", "on_update_flagged", "derived", -MS),
    ("month_new_york", "on_window_close", "expression", timedelta(0)),
    ("session_10m", "on_update_flagged", "iso", timedelta(0)),
    ("session_10m", "on_window_close", "derived", MS),
]


def queries() -> tuple[list[str], dict[int, tuple]]:
    """The queries' sources and, by query number, (case, emit, watermark instant)."""
    sources, meaning = [], {}
    cases = {name: (arguments, zone, strategy) for name, arguments, zone, strategy in CASES}
    for number, (name, emit, form, shift) in enumerate(QUERIES):
        arguments, zone, strategy = cases[name]
        instant = boundary(reference_windows(arguments, zone)) + shift
        lateness = f"{(LATEST - instant) // MS} milliseconds" if form == "derived" else None
        watermark = {"iso": f"'{iso(instant)}'", "expression": f'"timestamp_micros({micros(instant)})"',
                     "derived": "none"}[form]
        meaning[number] = (name, emit, instant)
        flag = "is_final" if emit == "on_update_flagged" else "true"
        sources.append(
            f"select {number} as query, k, cast(window_start as string) as window_start, "
            f"cast(window_end as string) as window_end, unix_micros(window_time) as window_time, n, total, "
            f"{flag} as is_final from ({{{{ window_tvf.window_aggregate('events', "
            f"{window_spec(arguments, zone, lateness)}, group_by='k', "
            f"aggregates={{'n': 'count(*)', 'total': 'sum(v)'}}, strategy='{strategy}', keys='few', "
            f"emit='{emit}', watermark={watermark}) }}}}) as emitted"
        )
    return sources, meaning


def expected(meaning: dict[int, tuple]) -> set[tuple]:
    rows = set()
    cases = {name: (arguments, zone) for name, arguments, zone, _ in CASES}
    for number, (name, emit, watermark) in meaning.items():
        arguments, zone = cases[name]
        for (key, start, end, last), (count, total) in reference_windows(arguments, zone).items():
            final = None if watermark is None else is_final(arguments["tvf"], last, watermark)
            if emit == "on_window_close" and not final:
                continue
            flag = True if emit == "on_window_close" else final
            rows.add((number, key, wall_string(start), wall_string(end), micros(last), count, total, flag))
    return rows


def test_emit_and_watermark_equal_the_reference() -> None:
    sources, meaning = queries()
    run = run_dbt(["compile", "--quiet", "--inline", f"\n{SPLIT}\n".join(sources)])
    assert run.success, run.messages
    compiled = run.result.results[0].node.compiled_code.split(SPLIT)
    from pyspark.sql import SparkSession

    spark = SparkSession.builder.getOrCreate()
    values = ", ".join(f"('{key}', timestamp_micros({micros(time)}), {value})" for key, time, value in EVENTS)
    truth = expected(meaning)
    for number, query in enumerate(compiled):
        rows = spark.sql(f"with events as (select * from values {values} as events(k, t, v)) {query}").collect()
        assert {tuple(row) for row in rows} == {row for row in truth if row[0] == number}, meaning[number]
    # Every query has windows on both sides of its watermark (so neither "all final" nor "none" passes).
    cases = {name: (arguments, zone) for name, arguments, zone, _ in CASES}
    for number, (name, emit, watermark) in meaning.items():
        arguments, zone = cases[name]
        flags = {is_final(arguments["tvf"], window[3], watermark) for window in reference_windows(arguments, zone)}
        assert flags == {True, False}, (name, watermark)


TUMBLE = "{'tvf': 'tumble', 'timecol': 't', 'size': '10 minutes'}"
INCREMENTAL = ("incremental_window_aggregate('events', " + TUMBLE + ", 'k', {'n': 'count(*)'}, "
               "interval_start=none, allowed_lateness='1 hour', ")

BAD_CALLS = [
    pytest.param(
        "window_aggregate('events', " + TUMBLE + ", 'k', {'n': 'count(*)'}, emit='final')",
        """window_tvf.window_aggregate: argument 'emit' got "final"; expected 'on_update' (every window as soon as it """
        """holds rows, the default), 'on_update_flagged' (the same, plus a boolean column is_final) or """
        """'on_window_close' (only the final windows: window_time at or before the watermark)""",
        id="emit-unknown",
    ),
    pytest.param(
        "window_aggregate('events', " + TUMBLE + ", 'k', {'n': 'count(*)'}, watermark='2026-11-01T00:00:00Z')",
        """window_tvf.window_aggregate: argument 'watermark' got "2026-11-01T00:00:00Z"; a watermark decides which """
        """windows are final, and emit 'on_update' (the default) emits every window unflagged; set """
        """emit='on_update_flagged' or 'on_window_close', or leave watermark unset""",
        id="watermark-without-emit",
    ),
    pytest.param(
        "window_aggregate('events', " + TUMBLE + ", 'k', {'n': 'count(*)'}, emit='on_window_close')",
        """window_tvf.window_aggregate: argument 'watermark' got None; a watermark derived from the data (none) is the """
        """largest time column value less the window spec's 'allowed_lateness', and the window spec has no """
        """'allowed_lateness'; add 'allowed_lateness' to the window spec (e.g. '2 hours'; '0 seconds' for events """
        """that arrive in order) or pass a watermark: an ISO 8601 time such as '2026-11-01T03:00:00Z' or a SQL """
        """expression of a timestamp""",
        id="derived-without-lateness",
    ),
    pytest.param(
        "window_aggregate('events', " + TUMBLE + ", 'k', {'n': 'count(*)'}, emit='on_window_close', watermark=42)",
        """window_tvf.window_aggregate: argument 'watermark' got 42; expected none (derived from the data: the largest """
        """time less the window spec's allowed_lateness), an ISO 8601 time such as '2026-11-01T03:00:00Z', or a SQL """
        """expression of a timestamp such as "current_timestamp() - interval 2 hours\"""",
        id="watermark-number",
    ),
    pytest.param(
        INCREMENTAL + "emit='on_window_close')",
        """window_tvf.incremental_window_aggregate: argument 'interval_end' got None; emit "on_window_close" needs the """
        """data interval's end (Airflow's data_interval_end) on every run, the first included""",
        id="close-without-interval-end",
    ),
    pytest.param(
        INCREMENTAL.replace("interval_start=none", "interval_start='2026-11-01T02:00:00Z'") + "emit='on_update_flagged')",
        """window_tvf.incremental_window_aggregate: argument 'interval_end' got None; emit "on_update_flagged" with an """
        """interval_start needs the data interval's end""",
        id="flagged-interval-without-end",
    ),
    pytest.param(
        INCREMENTAL + "emit='on_window_close', interval_end='the end')",
        """window_tvf.incremental_window_aggregate: argument 'interval_end' got "the end"; expected an ISO 8601 time""",
        id="interval-end-not-a-time",
    ),
    pytest.param(
        "interval_watermark('2026-11-01T03:00:00Z', '-1 hour')",
        """window_tvf.interval_watermark: argument 'allowed_lateness' got "-1 hour"; it must be zero or a positive """
        """duration, e.g. '2 hours'""",
        id="interval-watermark-negative-lateness",
    ),
    pytest.param(
        "interval_watermark('three o clock', '1 hour')",
        """window_tvf.interval_watermark: argument 'interval_end' got "three o clock"; expected an ISO 8601 time""",
        id="interval-watermark-end-not-a-time",
    ),
]


@pytest.mark.parametrize("call, message", BAD_CALLS)
def test_bad_arguments_fail_at_compile_time(call: str, message: str) -> None:
    assert compile_error_line("{{ window_tvf." + call + " }}").startswith(message)


def test_interval_watermark_is_the_interval_end_less_the_lateness_less_1_ms() -> None:
    """What a microbatch model passes as window_aggregate's watermark (the pipeline's microbatch twins): the same
    instant incremental_window_aggregate derives from interval_end, as an ISO time in UTC; none outside a schedule."""
    calls = [
        ("'2026-11-01T03:00:00+00:00'", "'30 minutes'"),
        ("'2026-11-01T03:00:00-05:00'", "'0 seconds'"),  # an offset: the UTC instant
        ("'2026-11-01T03:00:00'", "'2 hours'"),  # no offset: UTC
        ("''", "'2 hours'"),
        ("none", "'2 hours'"),
    ]
    sql = "\n".join("{{ window_tvf.interval_watermark(" + end + ", " + lateness + ") }}" for end, lateness in calls)
    run = run_dbt(["compile", "--quiet", "--inline", sql])
    assert run.success, run.messages
    assert run.result.results[0].node.compiled_code.splitlines() == [
        "2026-11-01T02:29:59.999000Z", "2026-11-01T07:59:59.999000Z", "2026-11-01T00:59:59.999000Z", "None", "None",
    ]
