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
from pathlib import Path
from typing import Any

import pytest

import gap_fill_reference as gf
import window_reference as ref
from dbt_harness import REPO, TABLE_FORMAT, compile_error_line, run_dbt

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
    for seed, case in enumerate(CASES):
        draw(case, seed)
        create_input(session, case)
    return session


def test_gap_fill_equals_the_reference(spark) -> None:
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


def test_days_on_dst_changes_are_23_and_25_hours(spark) -> None:
    """The day windows the macro added or kept on New York's DST dates last 23 and 25 hours (window_time to
    window_time), as the TUMBLE TVF's do."""
    case = next(case for case in CASES if case.name == "day_new_york")
    sql = run_dbt(["compile", "--quiet", "--inline", f"select window_start, unix_micros(window_time) as t from ({call(case)})"])
    assert sql.success, sql.messages
    times = {row.window_start.date().isoformat(): row.t for row in spark.sql(sql.result.results[0].node.compiled_code).collect()}
    hour = 3_600_000_000
    assert times["2024-03-10"] - times["2024-03-09"] == 23 * hour
    assert times["2024-03-11"] - times["2024-03-10"] == 24 * hour


def test_a_window_off_the_grid_fails_the_query(spark) -> None:
    spark.sql(f"drop table if exists {SCHEMA}.off_grid")
    spark.sql(f"create table {SCHEMA}.off_grid using parquet as select timestamp_ntz'2024-01-01 00:30:00' as window_start, "
              "timestamp_ntz'2024-01-01 01:30:00' as window_end, timestamp_ntz'2024-01-01 01:29:59.999' as window_time, "
              "'a' as k, 1L as n")
    run = run_dbt(["compile", "--quiet", "--inline", "{{ window_tvf.window_gap_fill('" + SCHEMA + ".off_grid', "
                   "{'tvf': 'tumble', 'size': '1 hour'}, 'k', fill={'n': 0}) }}"])
    assert run.success, run.messages
    with pytest.raises(Exception, match="is not a tumble window of the window spec"):
        spark.sql(run.result.results[0].node.compiled_code).collect()


TABLE = f"'{SCHEMA}.hour_fall_new_york'"
HOURS = "{'tvf': 'tumble', 'size': '1 hour', 'time_zone': 'America/New_York'}"
BAD_CALLS = [
    pytest.param(f"{TABLE}, {{'tvf': 'session', 'timecol': 't', 'gap': '5 minutes'}}, 'k'",
                 """window_tvf.window_gap_fill: argument 'window' got {"gap": "5 minutes", "timecol": "t", "tvf": "session"}; a session window has no grid""",
                 id="session-has-no-grid"),
    pytest.param(f"{TABLE}, {HOURS}, 'k', fill={{'n': 'mean'}}",
                 """window_tvf.window_gap_fill: argument 'fill' got {"n": "mean"}; expected {column: fill}""", id="fill-unknown"),
    pytest.param(f"{TABLE}, {HOURS}, 'k', fill={{'nope': 0}}",
                 """window_tvf.window_gap_fill: argument 'fill' got "nope"; no such column""", id="fill-no-such-column"),
    pytest.param(f"{TABLE}, {HOURS}, 'k', fill={{'v': {{'locf': 0}}}}",
                 """window_tvf.window_gap_fill: argument 'fill' got 0; expected a whole number >= 1""", id="locf-bound-zero"),
    pytest.param(f"{TABLE}, {HOURS}, 'k', span='all'",
                 """window_tvf.window_gap_fill: argument 'span' got "all"; expected 'key'""", id="span-unknown"),
    pytest.param(f"{TABLE}, {HOURS}, 'k', keys_from='{SCHEMA}.dimension', span='key'",
                 """window_tvf.window_gap_fill: argument 'span' got "key"; keys_from gives keys that may have no windows""",
                 id="keys-from-with-span-key"),
    pytest.param(f"{TABLE}, {HOURS}, 'k', start='2024-01-01; drop table x'",
                 """window_tvf.window_gap_fill: argument 'start' got "2024-01-01; drop table x"; expected a time""",
                 id="start-not-a-time"),
    pytest.param(f"{TABLE}, {HOURS}, 'k', filled_column='n'",
                 """window_tvf.window_gap_fill: argument 'filled_column' got "n"; the relation already has a column""",
                 id="filled-column-taken"),
]


@pytest.mark.parametrize("arguments, message", BAD_CALLS)
def test_bad_arguments_fail_at_compile_time(spark, arguments: str, message: str) -> None:
    assert message in compile_error_line("{{ window_tvf.window_gap_fill(" + arguments + ") }}")


MICROBATCH_FILLS = {"n": 0, "v": "locf", "x": "previous", "y": {"locf": 2}, "z": {"locf": "3 hours"}}
BATCHES = ("2026-11-01T05:00:00", "2026-11-01T09:00:00")  # UTC hours across New York's fall-back night (06:00Z)


def microbatch_project(root: Path) -> None:
    """A project with hourly New York windows (key a often, b once before the batches, c before and after a gap
    through them, d first inside them), gap filled as a table over all data and as an hourly microbatch model."""
    case = Case("mb", "tumble", {"size": "1 hour"}, NEW_YORK, datetime(2026, 10, 31, 18), datetime(2026, 11, 1, 8))
    case.windows = gf.grid_windows(case.tvf, case.arguments, case.zone, case.low, case.high)
    hours = [i for i, w in enumerate(case.windows) if w.exists and case.low <= w.start and w.end <= case.high]
    values = lambda n, v: {"n": n, "v": v, "w": None, "x": n, "y": v, "z": v, "i": None, "u": None}  # noqa: E731
    picks = {"a": [(hours[k], k % 3 and 1.5 * k or None) for k in range(1, len(hours), 3)], "b": [(hours[2], 42.0)],
             "c": [(hours[3], 7.0), (hours[-2], None), (hours[-1], 8.0)], "d": [(hours[-5], 3.0)]}
    for key, chosen in picks.items():
        for n, (i, v) in enumerate(chosen):
            case.rows[(key, i)] = values(n + 1, v)
    rows = []
    for (key, i), row in sorted(case.rows.items()):
        w = case.windows[i]
        rows.append(f"(timestamp_ntz'{w.start.isoformat(sep=' ')}', timestamp_ntz'{w.end.isoformat(sep=' ')}', "
                    f"{time_literal(case, w)}, '{key}', " + ", ".join(literal(row[c], c) for c in COLUMNS) + ")")
    call = (f"window_tvf.window_gap_fill(ref('windows'), {case.spec()}, 'k', fill={MICROBATCH_FILLS!r}"
            + "{end})")
    files = {
        "dbt_project.yml": f"name: gap_fill_check\nversion: '1.0.0'\nconfig-version: 2\nprofile: gap_fill_check\n"
                           f"models:\n  gap_fill_check:\n    +materialized: table\n    +file_format: {TABLE_FORMAT}\n",
        "packages.yml": f"packages:\n  - local: {REPO}\n",
        "profiles.yml": f"gap_fill_check:\n  target: embedded\n  outputs:\n    embedded:\n      type: spark\n"
                        f"      method: session\n      host: localhost\n      schema: {SCHEMA}_mb\n",
        "models/windows.sql": "{{ config(event_time='window_time') }}\nselect * from values " + ", ".join(rows)
                              + f" as t(window_start, window_end, window_time, k, {', '.join(COLUMNS)})\n",
        "models/full_filled.sql": "{{ " + call.replace("{end}", f", end='{BATCHES[1]}+00:00'") + " }}\n",
        "models/mb_filled.sql": "{{ config(materialized='incremental', incremental_strategy='microbatch', "
                                "event_time='window_time', batch_size='hour', begin='2026-11-01', "
                                "partition_by=['window_hour']) }}\n{{ " + call.replace("{end}", "") + " }}\n",
    }
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)


def test_microbatch_batches_equal_a_full_build(spark, tmp_path: Path) -> None:
    """Hourly batches, one built alone before the others (order does not matter), each write exactly their own
    windows, and LOCF, its bounds and 'previous' carry across batch boundaries from the input's earlier windows: the
    batches equal the table built over all data, restricted to the batches' windows."""
    microbatch_project(tmp_path)
    for args in (["deps"], ["run", "--select", "windows", "full_filled"],
                 ["run", "--select", "mb_filled", "--event-time-start", "2026-11-01T07:00:00", "--event-time-end",
                  "2026-11-01T08:00:00"],
                 ["run", "--select", "mb_filled", "--event-time-start", BATCHES[0], "--event-time-end", BATCHES[1]]):
        run = run_dbt(args, project_dir=tmp_path)
        assert run.success, run.messages
    schema = f"{SCHEMA}_mb"
    columns = ", ".join(spark.table(f"{schema}.full_filled").columns)
    full = spark.sql(f"select {columns} from {schema}.full_filled where window_time >= '{BATCHES[0]}+00:00' "
                     f"and window_time < '{BATCHES[1]}+00:00'")
    built = spark.sql(f"select {columns} from {schema}.mb_filled")
    assert full.count() == built.count() > 0
    assert full.exceptAll(built).count() == 0 and built.exceptAll(full).count() == 0
    carried = spark.sql(f"select k, v, y, is_filled from {schema}.mb_filled where k = 'b'").collect()
    # b's one window lies before the batches: every batch carries its value (LOCF), and the bounded ones end
    assert carried and all(row.is_filled and row.v == 42.0 and row.y is None for row in carried)
    assert {row.k for row in built.collect()} == {"a", "b", "c", "d"}
