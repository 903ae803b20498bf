"""window_gap_fill row for row against an independent reference (gap_fill_reference.py: zoneinfo and the window
definitions, not the macro's SQL): New York's DST days (a 23- and a 25-hour day, an hour the clock skips), a
dimension key without windows, windows at the range's edges, a key with a single window, LOCF across a long gap
(unbounded and bounded by windows and by time), interpolation with NULL and missing neighbours, hop and cumulate
grids, calendar months; bad arguments at compile time."""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import pytest

import gap_fill_reference as gf
import window_reference as ref
from dbt_harness import compile_error_line, run_dbt

SCHEMA = "window_tvf_gap_fill_test"
SPLIT = "-- window_tvf test split --"
NEW_YORK = "America/New_York"
COLUMNS = ["n", "v", "w", "x", "y", "z", "i", "u"]
TYPES = {"n": "bigint", "v": "double", "w": "double", "x": "bigint", "y": "double", "z": "double", "i": "bigint", "u": "string"}
FILLS = {"n": 0, "v": "locf", "w": "interpolate", "x": "previous", "y": {"locf": 2}, "z": {"locf": "3 hours"}, "i": "interpolate"}


@dataclass
class Case:
    """One gap fill: the window spec's TVF and arguments, the zone (None: timestamp_ntz windows), the wall-clock
    range its input windows are drawn from, and the macro's other arguments."""

    name: str
    tvf: str
    arguments: dict[str, str]
    zone: str | None
    low: datetime
    high: datetime
    span: str | None = None
    start: str | None = None
    end: str | None = None
    keys_from: bool = False
    fills: dict[str, Any] = field(default_factory=lambda: dict(FILLS))
    windows: list[gf.Window] = field(default_factory=list)
    rows: dict[tuple[str, int], dict] = field(default_factory=dict)

    def spec(self) -> str:
        items = {"tvf": self.tvf, **self.arguments, **({"time_zone": self.zone} if self.zone else {})}
        return repr(items)

    def bound(self, text: str | None) -> datetime | None:
        if text is None:
            return None
        if "+" in text[10:]:
            return datetime.fromisoformat(text)
        wall = datetime.fromisoformat(text)
        return wall if self.zone is None else ref.instant_of(wall, self.zone)


CASES = [
    # the spring-forward day; every dimension key over the range, whose first and last windows have rows
    Case("hour_spring_new_york", "tumble", {"size": "1 hour"}, NEW_YORK, datetime(2024, 3, 9, 12), datetime(2024, 3, 11, 12),
         start="2024-03-09 22:00", end="2024-03-11 02:00", keys_from=True),
    Case("hour_fall_new_york", "tumble", {"size": "1 hour"}, NEW_YORK, datetime(2024, 11, 2, 20), datetime(2024, 11, 4, 4),
         span="key"),
    Case("day_new_york", "tumble", {"size": "1 day"}, NEW_YORK, datetime(2024, 2, 25), datetime(2024, 4, 5), span="data"),
    Case("hop_3h_1h_new_york", "hop", {"slide": "1 hour", "size": "3 hours"}, NEW_YORK, datetime(2024, 11, 2, 18),
         datetime(2024, 11, 4, 6), span="key", start="2024-11-03T02:00:00+00:00", end="2024-11-04T06:00:00+00:00"),
    Case("month_to_date_new_york", "cumulate", {"step": "1 day", "size": "1 month"}, NEW_YORK, datetime(2024, 2, 10),
         datetime(2024, 4, 20), span="data"),
    Case("month_ntz", "tumble", {"size": "1 month"}, None, datetime(2023, 6, 1), datetime(2025, 3, 1), span="key",
         end="2025-01-01"),
    Case("cumulate_6h_1d_offset_ntz", "cumulate", {"step": "6 hours", "size": "1 day", "offset": "-6 hours"}, None,
         datetime(2024, 5, 1), datetime(2024, 5, 9), span="data", start="2024-05-02 12:00"),
]


def draw(case: Case, seed: int) -> None:
    """The case's grid windows and its input: key a on many windows (the range's first and last among them), b on
    one, c on a few far apart (one before the range), values NULL now and then."""
    rng = random.Random(seed)
    case.windows = gf.grid_windows(case.tvf, case.arguments, case.zone, case.low, case.high)
    existing = [i for i, w in enumerate(case.windows) if w.exists and case.low <= w.start and w.end <= case.high]
    start, end = case.bound(case.start), case.bound(case.end)
    in_range = [i for i in existing if (start is None or gf.micros(case.windows[i].time) >= gf.micros(start))
                and (end is None or gf.micros(case.windows[i].time) < gf.micros(end))]
    chosen = {
        "a": sorted({in_range[0], in_range[-1], *rng.sample(in_range, max(1, len(in_range) // 3))}),
        "b": [rng.choice(in_range)],
        "c": sorted({existing[1], in_range[len(in_range) // 4], in_range[-2]}),
    }
    for key, indexes in chosen.items():
        for i in indexes:
            values = {
                "n": rng.randint(1, 9), "v": rng.choice([None, 1.5, 2.25, 4.0]), "w": rng.choice([None, 10.0, 20.5, 3.0]),
                "x": rng.choice([None, 7, 8]), "y": rng.choice([None, 0.5, 5.0]), "z": rng.choice([None, 6.0, 9.5]),
                "i": rng.choice([None, 100, 201, 350]), "u": rng.choice([None, "p", "q"]),
            }
            case.rows[(key, i)] = values


def literal(value: Any, column: str) -> str:
    if value is None:
        return f"cast(null as {TYPES[column]})"
    return f"'{value}'" if isinstance(value, str) else f"cast({value} as {TYPES[column]})"


def time_literal(case: Case, window: gf.Window) -> str:
    if case.zone is None:
        return f"timestamp_ntz'{window.time.isoformat(sep=' ')}'"
    return f"timestamp_micros({gf.micros(window.time)})"


def create_input(spark: Any, case: Case) -> None:
    rows = []
    for (key, i), values in sorted(case.rows.items()):
        w = case.windows[i]
        rows.append(f"(timestamp_ntz'{w.start.isoformat(sep=' ')}', timestamp_ntz'{w.end.isoformat(sep=' ')}', "
                    f"{time_literal(case, w)}, '{key}', " + ", ".join(literal(values[c], c) for c in COLUMNS) + ")")
    spark.sql(f"drop table if exists {SCHEMA}.{case.name}")
    spark.sql(f"create table {SCHEMA}.{case.name} using parquet as select * from values {', '.join(rows)} "
              f"as t(window_start, window_end, window_time, k, {', '.join(COLUMNS)})")


def call(case: Case) -> str:
    arguments = [f"'{SCHEMA}.{case.name}'", case.spec(), "'k'", f"fill={case.fills!r}"]
    for name in ("start", "end", "span"):
        if getattr(case, name) is not None:
            arguments.append(f"{name}={getattr(case, name)!r}")
    if case.keys_from:
        arguments.append(f"keys_from='{SCHEMA}.dimension'")
    return "{{ window_tvf.window_gap_fill(" + ", ".join(arguments) + ") }}"


def time_sql(case: Case) -> str:
    if case.zone is None:
        return "timestampdiff(microsecond, timestamp_ntz'1970-01-01 00:00:00', window_time)"
    return "unix_micros(window_time)"


def normal(row: tuple) -> tuple:
    return tuple(round(value, 6) if isinstance(value, float) else value for value in row)


def expected(case: Case) -> list[tuple]:
    rows = gf.gap_fill(case.windows, case.rows, case.fills, COLUMNS, case.span or ("data" if case.keys_from else "key"),
                       case.bound(case.start), case.bound(case.end), ["a", "b", "c", "d"] if case.keys_from else None)
    result = []
    for key, start, end, time, *values, filled in rows:
        values[COLUMNS.index("i")] = None if values[COLUMNS.index("i")] is None else math.floor(values[COLUMNS.index("i")] + 0.5)
        result.append(normal((key, start, end, gf.micros(time), *values, filled)))
    return sorted(result, key=repr)


@pytest.fixture(scope="module")
def spark():
    """dbt's in-process SparkSession (started by a first compile), without the project's build."""
    run = run_dbt(["compile", "--quiet", "--inline", "select 1"])
    assert run.success, run.messages
    from pyspark.sql import SparkSession

    session = SparkSession.builder.getOrCreate()
    session.sql(f"create schema if not exists {SCHEMA}")
    session.sql(f"drop table if exists {SCHEMA}.dimension")
    session.sql(f"create table {SCHEMA}.dimension using parquet as select * from values ('a'), ('b'), ('c'), ('d') as d(k)")
    return session


def test_gap_fill_equals_the_reference(spark) -> None:
    for seed, case in enumerate(CASES):
        draw(case, seed)
        create_input(spark, case)
    queries = [
        f"select k, window_start, window_end, {time_sql(case)} as window_time, {', '.join(COLUMNS)}, is_filled "
        f"from ({call(case)}) as filled"
        for case in CASES
    ]
    run = run_dbt(["compile", "--quiet", "--inline", f"\n{SPLIT}\n".join(queries)])
    assert run.success, run.messages
    for case, sql in zip(CASES, run.result.results[0].node.compiled_code.split(SPLIT)):
        actual = sorted((normal(tuple(row)) for row in spark.sql(sql).collect()), key=repr)
        assert actual == expected(case), case.name
