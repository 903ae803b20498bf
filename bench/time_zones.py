"""Benchmark: windows on a zone's wall clock and calendar windows against the same queries in UTC.

Part of `make bench` (after bench/window_aggregation.py). Every query runs as window_tvf.window_aggregate over the
same table twice: once with time_zone 'UTC', once with time_zone 'America/New_York' (the data crosses the March
2024 DST change and two month ends), all in one SparkSession, timed as the median of REPEATS runs into the no-op
sink. The zoned run adds one offset lookup per row (arithmetic on longs over a transition table) and per-window
conversions; the target is at most 1.3x its UTC twin. Writes its table into docs/benchmarks/time_zones.md between
markers.
"""

from __future__ import annotations

import os
import sys

from harness import (
    BENCHMARKS, REPO, BenchSpark, cell, compile_inline, event_table, load_average, ratio, relation, run_stamp, timed,
    timed_together, write_section,
)

BENCH_DIR = REPO / ".spark" / "bench"
SPARK = BenchSpark(BENCH_DIR / "spark", log_file=BENCH_DIR / "spark.log")
SPARK.configure_environment()  # before dbt or Spark starts: the profile reads it
REPEATS = int(os.environ.get("BENCH_REPEATS", "3"))
ROWS = int(os.environ.get("BENCH_ROWS", "10000000"))
TIMEOUT_S = 600
KEYS = 1000
DAYS = 60  # 2024-02-15 to 2024-04-15: the March 10 DST change, the end of February (leap year) and of March
TARGET = 1.3
AGGREGATES = {"events": "count(*)", "total": "sum(amount)", "smallest": "min(amount)", "largest": "max(amount)"}
QUERIES = [
    ("tumble 1 day", {"tvf": "tumble", "timecol": "ts", "size": "1 day"}),
    ("cumulate 1 day / 1 hour", {"tvf": "cumulate", "timecol": "ts", "step": "1 hour", "size": "1 day"}),
    ("cumulate 1 month / 1 day (month to date)", {"tvf": "cumulate", "timecol": "ts", "step": "1 day", "size": "1 month"}),
]
ZONES = ["UTC", "America/New_York"]
READING = (
    "The zoned query looks up each row's UTC offset in the zone's transition table (a 97-day bucket in an array "
    "literal, then a comparison or two: arithmetic on longs) and converts each window's bounds once; the UTC twin "
    "skips both. Calendar "
    "months cost a month number per slice, not per row."
)
BEGIN, END = "<!-- measured by make bench (bench/time_zones.py): begin -->", "<!-- measured by make bench (bench/time_zones.py): end -->"


def zone_events(spark) -> str:
    """ROWS events over DAYS days for KEYS keys, seeded, as a table (a known timestamp column, as in a dbt model)."""
    return event_table(spark, BENCH_DIR / "data", f"zone_events_{ROWS}", ROWS,
                       f"concat('key_', pmod(xxhash64(id, 1), {KEYS}))", "2024-02-15 00:00:00", DAYS)


def compile_query(table: str, window: dict[str, str]) -> str:
    call = f"{{{{ window_tvf.window_aggregate({relation(table)}, {window!r}, 'event_key', {AGGREGATES!r}) }}}}"
    return compile_inline(call, BENCH_DIR / "dbt_logs")


def main() -> int:
    spark = SPARK.session()
    print(f"Spark's log: {SPARK.log_file}", flush=True)
    table = zone_events(spark)
    lines = [
        "| query | UTC seconds | America/New_York seconds | New York / UTC | target |",
        "|---|---|---|---|---|",
    ]
    timed(spark, f"select event_key, count(*) from {table} group by event_key", 1, TIMEOUT_S)  # warm-up
    for name, window in QUERIES:
        seconds = timed_together(spark, {zone: compile_query(table, dict(window, time_zone=zone)) for zone in ZONES},
                                 REPEATS, TIMEOUT_S)
        utc, local = seconds["UTC"], seconds["America/New_York"]
        met = "met" if utc and local and local / utc <= TARGET else "missed"
        lines.append(f"| {name} | {cell(utc, TIMEOUT_S)} | {cell(local, TIMEOUT_S)} | {ratio(local, utc)} | <= {TARGET}x: {met} |")
        print(lines[-1], flush=True)
    table = "\n".join(lines)
    write_doc(table)
    print(table)
    return 0


def write_doc(table: str) -> None:
    body = (f"Measured {run_stamp()} ({load_average()} at the end). {ROWS:,} events over {DAYS} days from 2024-02-15 "
            f"(the March 10 DST change in New York, two month ends), "
            f"{KEYS} keys, as a parquet table; window_tvf.window_aggregate with count, sum, min, max per key and "
            f"window; median of {REPEATS} runs; {os.cpu_count()} cores; made by `make bench-time-zones` (also a "
            f"step of `make bench`).\n\n{table}\n\n{READING}")
    write_section(BENCHMARKS / "time_zones.md", "Results", BEGIN, END, body)


if __name__ == "__main__":
    sys.exit(main())
