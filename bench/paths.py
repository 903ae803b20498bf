"""Which path window_aggregate's strategy='auto' takes, and whether it is the faster one: every query and key
distribution of bench/window_aggregation.py at 3 M rows, as strategy='auto' and as strategy='rows' (each row copied
into every window it belongs to, then one GROUP BY), in turn, in one SparkSession.

    make bench-paths        # about 10 minutes; writes its section of docs/benchmarks/paths.md

Uses the data sets of bench/window_aggregation.py (made on first use). BENCH_REPEATS sets the runs per cell (the
median is kept; default 1: the rows path is the slow one and it is only compared, not targeted).
"""

from __future__ import annotations

import os
import sys
import time

from harness import (
    BENCHMARKS, REPO, cell, compile_inline, event_table, load_average, ratio, relation, run_stamp, timed,
    timed_together, write_section,
)
from window_aggregation import AGGREGATES, BENCH_DIR, DAYS, QUERIES, SHAPES, SPARK, START, TABLE, TIMEOUT_S

ROWS = 3_000_000
REPEATS = int(os.environ.get("BENCH_REPEATS", "1"))
BEGIN, END = "<!-- measured by make bench-paths (bench/paths.py): begin -->", \
    "<!-- measured by make bench-paths (bench/paths.py): end -->"


def compiled(query, strategy: str) -> str:
    call = (f"{{{{ window_tvf.window_aggregate({relation(TABLE)}, {query.window!r}, 'event_key', {AGGREGATES!r}, "
            f"strategy={strategy!r}) }}}}")
    return compile_inline(call, BENCH_DIR / "dbt_logs")


def main() -> int:
    began = time.monotonic()
    spark = SPARK.session()
    print(f"Spark's log: {SPARK.log_file}", flush=True)
    lines = ["| data | query | auto s | rows s | auto / rows | auto takes the faster path |", "|---|---|---|---|---|---|"]
    sql: dict[tuple[str, str], str] = {}
    for shape in SHAPES:
        event_table(spark, BENCH_DIR / "data", f"{shape.name}_{ROWS}", ROWS, shape.key_sql, START, DAYS, TABLE)
        # every data set is registered as TABLE in turn (same columns): 'rows' compiles once, 'auto' once per data
        # set (it reads the rows per key and slice when it compiles)
        sql.update({(q.name, s): compiled(q, s) for q in QUERIES for s in ("auto", "rows")
                    if s == "auto" or (q.name, s) not in sql})
        timed(spark, f"select event_key, count(*) from {TABLE} group by event_key", 1, TIMEOUT_S)  # warm-up
        for query in QUERIES:
            seconds = timed_together(spark, {s: sql[(query.name, s)] for s in ("auto", "rows")}, REPEATS, TIMEOUT_S)
            auto, rows = seconds["auto"], seconds["rows"]
            faster = "yes" if auto is not None and (rows is None or auto <= rows) else "**no**"
            lines.append(f"| {shape.label} | {query.name} | {cell(auto, TIMEOUT_S)} | {cell(rows, TIMEOUT_S)} | "
                         f"{ratio(auto, rows)} | {faster} |")
            print(lines[-1], f"[{(time.monotonic() - began) / 60:.1f} min]", flush=True)
    table = "\n".join(lines)
    write_doc(table, (time.monotonic() - began) / 60)
    print(f"\n{table}")
    return 0


def write_doc(table: str, minutes: float) -> None:
    runs = f"median of {REPEATS} runs" if REPEATS > 1 else "one run"
    body = (f"Measured {run_stamp()} ({load_average()} at the end). {ROWS:,} rows of each key distribution; "
            f"window_aggregate with strategy 'auto' (the sliced path "
            f"for every query here) and with strategy 'rows' (each row copied into its windows, then GROUP BY), in "
            f"turn; {runs} per cell; {os.cpu_count()} cores; {minutes:.0f} minutes; made by `make bench-paths`."
            f"\n\n{table}")
    write_section(BENCHMARKS / "paths.md", "Results", BEGIN, END, body)


if __name__ == "__main__":
    sys.exit(main())
