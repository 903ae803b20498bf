"""Benchmark: window_gap_fill against the date-spine join an analyst writes by hand.

Part of `make bench` (make bench-gap-fill alone). ROWS events (default 3 M) over 30 days for 1,000 keys are
aggregated once into hourly windows per key (window_aggregate, a table: the input both sides read); then, in one
SparkSession, each query runs into the no-op sink, in turn, REPEATS times (median):
  - window_gap_fill, span 'data' (every key, every hour from the data's first to its last): count filled with 0,
    the sum carried forward (LOCF);
  - the same with span 'key' (each key from its own first hour to its last);
  - the hand-written spine: sequence() of hours cross join the distinct keys, left join the aggregates, coalesce and
    last_value(... ignore nulls) over the key's hours: the same rows as span 'data';
  - one lead() over each key's windows: one shuffle and sort of the input, the floor of any pass over a key's
    windows in time order (LOCF needs one);
  - a GROUP BY key over the aggregates (partial aggregation: almost nothing shuffled).
Two key shapes: uniform (about 4 events per key and hour: few gaps) and skewed (key = 1000 * u^4: a few dense keys,
most keys sparse: mostly gaps). Target: window_gap_fill (span 'data') <= 0.5x the spine. Writes docs/gap_fill.md's
measured section.
"""

from __future__ import annotations

import os
import sys

from harness import (
    REPO, BenchSpark, cell, compile_inline, event_table, ratio, relation, timed, timed_together, write_section,
)

BENCH_DIR = REPO / ".spark" / "bench"
SPARK = BenchSpark(BENCH_DIR / "spark", log_file=BENCH_DIR / "spark.log")
SPARK.configure_environment()  # before dbt or Spark starts: the profile reads it
REPEATS = int(os.environ.get("BENCH_REPEATS", "3"))
ROWS = int(os.environ.get("BENCH_ROWS", "3000000"))
TIMEOUT_S = 600
KEYS = 1000
DAYS = 30
TARGET = 0.5
SHAPES = {
    "uniform": f"concat('key_', pmod(xxhash64(id, 1), {KEYS}))",
    "skewed": f"concat('key_', cast({KEYS} * pow(pmod(xxhash64(id, 1), 1000000) / 1000000.0, 4) as int))",
}
HOUR = {"tvf": "tumble", "timecol": "ts", "size": "1 hour"}
BEGIN, END = "<!-- measured by make bench (bench/gap_fill.py): begin -->", "<!-- measured by make bench (bench/gap_fill.py): end -->"


def hourly_table(spark, shape: str) -> str:
    """The events of `shape` aggregated into hourly windows per key, as a table (what a dbt model would hold)."""
    events = event_table(spark, BENCH_DIR / "data", f"gap_fill_events_{shape}_{ROWS}", ROWS, SHAPES[shape],
                         "2024-03-01 00:00:00", DAYS)
    table = f"{events}_hourly"
    aggregate = compile_inline(f"{{{{ window_tvf.window_aggregate({relation(events)}, {HOUR!r}, 'event_key', "
                               "{'events': 'count(*)', 'total': 'sum(amount)'}) }}", BENCH_DIR / "dbt_logs")
    spark.sql(f"drop table if exists {table}")
    spark.sql(f"create table {table} using parquet as {aggregate}")
    return table


def queries(table: str) -> dict[str, str]:
    fill = "{'events': 0, 'total': 'locf'}"
    gap_fill = {
        span: compile_inline(f"{{{{ window_tvf.window_gap_fill({relation(table)}, {HOUR!r}, 'event_key', fill={fill}, "
                             f"span='{span}') }}}}", BENCH_DIR / "dbt_logs")
        for span in ("data", "key")
    }
    spine = f"""
        with hours as (
            select explode(sequence(min(window_start), max(window_start), interval 1 hour)) as window_start
            from {table}
        ),
        keys as (
            select distinct event_key from {table}
        ),
        spine as (
            select hours.window_start, keys.event_key from hours cross join keys
        ),
        joined as (
            select spine.window_start, spine.event_key, hourly.events, hourly.total
            from spine
            left join {table} as hourly
                on hourly.window_start = spine.window_start and hourly.event_key = spine.event_key
        )
        select
            window_start,
            window_start + interval 1 hour as window_end,
            event_key,
            coalesce(events, 0) as events,
            last_value(total, true) over (
                partition by event_key order by window_start rows between unbounded preceding and current row
            ) as total,
            events is null as is_filled
        from joined
    """
    return {
        "window_gap_fill, span 'data'": gap_fill["data"],
        "window_gap_fill, span 'key'": gap_fill["key"],
        "hand-written date spine": spine,
        "one lead() per key (floor)": f"select *, lead(window_start) over (partition by event_key order by window_start) "
                                      f"as next_start from {table}",
        "GROUP BY key (floor)": f"select event_key, sum(events) as events, max(total) as total from {table} group by event_key",
    }


def main() -> int:
    spark = SPARK.session()
    print(f"Spark's log: {SPARK.log_file}", flush=True)
    lines = [
        "| key shape | input windows | output rows (span 'data') | query | seconds | x spine | target |",
        "|---|---|---|---|---|---|---|",
    ]
    for shape in SHAPES:
        table = hourly_table(spark, shape)
        compared = queries(table)
        windows = spark.table(table).count()
        output = spark.sql(compared["window_gap_fill, span 'data'"]).count()
        assert output == spark.sql(compared["hand-written date spine"]).count(), "gap fill and spine differ in rows"
        timed(spark, f"select * from {table}", 2, TIMEOUT_S)  # warm-up
        seconds = timed_together(spark, compared, REPEATS, TIMEOUT_S)
        spine = seconds["hand-written date spine"]
        for name, value in seconds.items():
            met = ""
            if name == "window_gap_fill, span 'data'":
                met = f"<= {TARGET}x: " + ("met" if value and spine and value / spine <= TARGET else "missed")
            lines.append(f"| {shape} | {windows:,} | {output:,} | {name} | {cell(value, TIMEOUT_S)} | "
                         f"{ratio(value, spine)} | {met} |")
            print(lines[-1], flush=True)
    table = "\n".join(lines)
    body = (f"{ROWS:,} events over {DAYS} days from 2024-03-01, {KEYS} keys, aggregated once into hourly windows per "
            f"key (a parquet table, not timed); each query into Spark's no-op sink, median of {REPEATS} runs in turn; "
            f"local[2]; made by `make bench-gap-fill` (also part of `make bench`).\n\n{table}")
    write_section(REPO / "docs" / "gap_fill.md", "Measured", BEGIN, END, body)
    print(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
