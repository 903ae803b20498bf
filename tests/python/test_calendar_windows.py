"""Calendar windows (weeks, months, quarters, years) and windows in time zones, row for row against an independent
reference (window_reference.py: Python's zoneinfo, written from the definitions, not from the macros' SQL), on
seeded random times from 1968 to 2031 in several zones plus hand-picked calendar edges."""

from __future__ import annotations

import random
import zlib
from datetime import datetime, timedelta, timezone

import pytest

import window_reference as ref
from dbt_harness import DbtRun, run_dbt

SPLIT = "-- window_tvf test split --"

CASES = [
    ("tumble", {"size": "1 month"}),
    ("tumble", {"size": "3 months"}),
    ("tumble", {"size": "1 quarter"}),
    ("tumble", {"size": "1 year"}),
    ("tumble", {"size": "1 week"}),
    ("tumble", {"size": "1 week", "week_start": "sunday"}),
    ("tumble", {"size": "2 weeks", "offset": "1 day"}),
    ("tumble", {"size": "1 day"}),
    ("tumble", {"size": "1 month", "offset": "6 hours"}),
    ("tumble", {"size": "1 year", "offset": "3 months"}),
    ("hop", {"slide": "1 month", "size": "3 months"}),
    ("hop", {"slide": "2 months", "size": "1 year", "offset": "-1 month"}),
    ("hop", {"slide": "1 day", "size": "1 week"}),
    ("hop", {"slide": "1 week", "size": "4 weeks", "week_start": "wednesday"}),
    ("cumulate", {"step": "1 day", "size": "1 month"}),
    ("cumulate", {"step": "1 month", "size": "1 year"}),
    ("cumulate", {"step": "1 month", "size": "1 quarter"}),
    ("cumulate", {"step": "1 day", "size": "1 week"}),
    ("cumulate", {"step": "6 hours", "size": "1 month", "offset": "-6 hours"}),
]

ZONES = ["America/New_York", "Australia/Lord_Howe", "Asia/Kolkata", "Europe/London", "UTC"]

# Local wall times at calendar edges: month ends of 28, 29, 30 and 31 days, quarter and year ends, a week across a
# year end, the DST days of 2024 (a month-to-date window across them), each with the millisecond before.
EDGES = [
    datetime(2023, 2, 28, 23, 59, 59, 999000), datetime(2023, 3, 1),
    datetime(2024, 2, 29, 23, 59, 59, 999000), datetime(2024, 3, 1), datetime(2024, 2, 28, 12),
    datetime(2024, 4, 30, 23, 59, 59, 999000), datetime(2024, 5, 1),
    datetime(2024, 3, 31, 23, 59, 59, 999000), datetime(2024, 4, 1),
    datetime(2024, 6, 30, 23, 59, 59, 999000), datetime(2024, 7, 1),
    datetime(2024, 12, 31, 23, 59, 59, 999000), datetime(2025, 1, 1), datetime(2024, 12, 30, 8),
    datetime(2025, 12, 31, 23, 59, 59, 999000), datetime(2026, 1, 1), datetime(2026, 1, 4, 23, 59, 59, 999000),
    datetime(2024, 3, 10, 1, 59, 59, 999000), datetime(2024, 3, 10, 3), datetime(2024, 3, 11),
    datetime(2024, 11, 3, 1, 30), datetime(2024, 11, 3, 23, 59, 59, 999000), datetime(2024, 11, 30, 23),
    datetime(2024, 4, 7, 1, 45), datetime(2024, 10, 6, 2, 45), datetime(2000, 2, 29, 6), datetime(1969, 12, 31, 23),
    datetime(1968, 12, 31, 23, 59, 59, 999000), datetime(1970, 1, 1), datetime(2030, 2, 28, 23, 59, 59, 999000),
]


def random_instants(seed: int, count: int) -> list[datetime]:
    rng = random.Random(seed)
    low, high = datetime(1968, 1, 1, tzinfo=timezone.utc), datetime(2031, 12, 31, tzinfo=timezone.utc)
    span = int((high - low).total_seconds() * 1000)
    return [low + timedelta(milliseconds=rng.randrange(span)) for _ in range(count)]


def instants(zone: str) -> list[datetime]:
    return random_instants(zlib.crc32(zone.encode()), 120) + [ref.instant_of(wall, zone) for wall in EDGES]


def spark_string(wall: datetime) -> str:
    """A wall time as Spark casts a timestamp_ntz to string (fraction without trailing zeros)."""
    text = wall.isoformat(sep=" ")
    return text.rstrip("0").rstrip(".") if "." in text else text


def micros(instant: datetime) -> int:
    return round((instant - datetime(1970, 1, 1, tzinfo=timezone.utc)).total_seconds() * 1_000_000)


def spec(tvf: str, arguments: dict[str, str], timecol: str, zone: str | None) -> str:
    items = {"tvf": tvf, "timecol": timecol, **arguments, **({"time_zone": zone} if zone else {})}
    return "{" + ", ".join(f"'{key}': '{value}'" for key, value in items.items()) + "}"


def run_cases(spark, values: str, timecol: str, zone: str | None, window_time_sql: str) -> dict[int, list[tuple]]:
    """Compile every case's TVF over the `events` CTE with dbt, run them on Spark, rows by case index."""
    queries = [
        f"select {index} as case_id, id, cast(window_start as string) as window_start, "
        f"cast(window_end as string) as window_end, {window_time_sql} as window_time "
        f"from ({{{{ window_tvf.apply_window('events', {spec(tvf, arguments, timecol, zone)}) }}}}) as windowed"
        for index, (tvf, arguments) in enumerate(CASES)
    ]
    compiled = compile_sql(f"\n{SPLIT}\n".join(queries)).split(SPLIT)
    rows: dict[int, list[tuple]] = {index: [] for index in range(len(CASES))}
    union = " union all ".join(f"({query})" for query in compiled)
    for row in spark.sql(f"with events as ({values}) {union}").collect():
        rows[row.case_id].append((row.id, row.window_start, row.window_end, row.window_time))
    return {index: sorted(found) for index, found in rows.items()}


def compile_sql(sql: str) -> str:
    run = run_dbt(["compile", "--quiet", "--inline", sql])
    assert run.success, run.messages
    return run.result.results[0].node.compiled_code


def expected_rows(times: list, zone: str | None, window_time) -> dict[int, list[tuple]]:
    expected = {}
    for index, (tvf, arguments) in enumerate(CASES):
        found = []
        for row_id, time in enumerate(times):
            for start, end, last in ref.window_rows(time, zone, tvf, **arguments):
                found.append((row_id, spark_string(start), spark_string(end), window_time(last)))
        expected[index] = sorted(found)
        assert len(expected[index]) >= len(times), f"case {CASES[index]} gives fewer windows than rows"
    return expected


@pytest.mark.parametrize("zone", ZONES)
def test_calendar_windows_of_timestamps_equal_the_reference(built: DbtRun, spark, zone: str) -> None:
    times = instants(zone)
    values = "select * from values " + ", ".join(
        f"({row_id}, timestamp_micros({micros(time)}))" for row_id, time in enumerate(times)
    ) + " as events(id, t)"
    actual = run_cases(spark, values, "t", zone, "unix_micros(window_time)")
    assert actual == expected_rows(times, zone, micros)


def test_calendar_windows_of_timestamp_ntz_equal_the_reference(built: DbtRun, spark) -> None:
    walls = [ref.wall_time(time, "UTC") for time in random_instants(5, 150)] + EDGES
    values = "select * from values " + ", ".join(
        f"({row_id}, timestamp_ntz'{wall.isoformat(sep=' ')}')" for row_id, wall in enumerate(walls)
    ) + " as events(id, t)"
    actual = run_cases(spark, values, "t", None, "cast(window_time as string)")
    assert actual == expected_rows(walls, None, spark_string)


def test_calendar_windows_follow_the_session_time_zone_by_default(built: DbtRun, spark, monkeypatch) -> None:
    # No time_zone argument: the session's zone, as Flink's table.local-time-zone. The macros ask for it when the
    # model compiles; the compiled SQL names the zone, so the result does not depend on the zone it runs in.
    zone = "America/New_York"
    times = instants(zone)
    values = "select * from values " + ", ".join(
        f"({row_id}, timestamp_micros({micros(time)}))" for row_id, time in enumerate(times)
    ) + " as events(id, t)"
    monkeypatch.setenv("WINDOW_TVF_SESSION_TIME_ZONE", zone)
    actual = run_cases(spark, values, "t", None, "unix_micros(window_time)")
    assert actual == expected_rows(times, zone, micros)
