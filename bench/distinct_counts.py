"""Benchmark: rolling distinct counts (window_aggregate's exact count(distinct x) and approx_distinct over slices)
against Spark's window() + count(distinct) and window() + approx_count_distinct, on the same data in one run; and
the HLL estimate's error by precision.

    make bench-distinct                                   # 10 M rows, three key shapes, three windows
    make bench-distinct ROWS=40000000 SHAPES=dense        # one shape at 40 M rows (linear growth)
    .venv/bin/python bench/distinct_counts.py --error     # the estimate's relative error by lg_k
    make bench-distinct GROWTH=10000000,20000000,40000000 # growth with rows (no Spark baseline: a floor instead)

Data: `rows` events over 30 days from 2024-01-01 (the key shapes of bench/window_aggregation.py: 1,000 uniform keys,
10 keys, Zipf over 100,000 keys) with user_id uniform over rows / 10 users (high cardinality: a 30-day window of a
dense key holds most of them). Queries, each per key: HOP 30 days / 1 day, HOP 7 days / 1 day, CUMULATE 1 month /
1 day (month to date). Spark has no cumulating window(), so its baseline there is window_aggregate's row path
(each row copied into its windows, as window() copies rows into hops). Each query runs into Spark's no-op sink;
the time is the median of --repeats runs, the queries of a cell run in turn. Results go to stdout and, for a full
run or with --note, to docs/benchmarks/distinct_counts.md, a section per command (rows, shapes, queries); --error
writes the same page's error table.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import time
from dataclasses import dataclass

from harness import (BENCH_SCHEMA, BENCHMARKS, REPO, BenchSpark, cell, compile_inline, ratio, relation, run_stamp,
                     timed_rounds, write_section)
from window_aggregation import SHAPES

BENCH_DIR = REPO / ".spark" / "bench_distinct"
SPARK = BenchSpark(BENCH_DIR / "spark", log_file=BENCH_DIR / "spark.log")
SPARK.configure_environment()
TIMEOUT_S = 900
DAYS = 30
START = "2024-01-01 00:00:00"
DOC = BENCHMARKS / "distinct_counts.md"


@dataclass(frozen=True)
class Query:
    name: str
    window: dict[str, str]
    native: str | None  # Spark's window() expression, or None: the row path is the baseline


QUERIES = [
    Query("hop 30 days / 1 day", {"tvf": "hop", "timecol": "ts", "slide": "1 day", "size": "30 days"},
          "window(ts, '30 days', '1 day')"),
    Query("hop 7 days / 1 day", {"tvf": "hop", "timecol": "ts", "slide": "1 day", "size": "7 days"},
          "window(ts, '7 days', '1 day')"),
    Query("cumulate month to date", {"tvf": "cumulate", "timecol": "ts", "step": "1 day", "size": "1 month"}, None),
]


def user_table(spark, shape, rows: int) -> str:
    """The events of `shape` with a user column, written once as parquet (not in git) and registered as a table."""
    name = f"distinct_{shape.name}_{rows}"
    path = BENCH_DIR / "data" / name
    if not (path / "_SUCCESS").exists():
        spark.sql(f"""
            select
                {shape.key_sql} as event_key,
                timestamp_micros(unix_micros(timestamp'{START}') + pmod(xxhash64(id, 2), {DAYS} * 86400000000)) as ts,
                pmod(xxhash64(id, 5), {max(rows // 10, 1)}) as user_id
            from range({rows})
        """).write.mode("overwrite").parquet(str(path))
    spark.sql(f"create database if not exists {BENCH_SCHEMA}")
    table = f"{BENCH_SCHEMA}.{name}"
    spark.sql(f"drop table if exists {table}")
    spark.sql(f"create table {table} using parquet location '{path}'")
    return table


def native_sql(table: str, window: str, aggregate: str) -> str:
    return (f"select window.start as window_start, window.end as window_end, event_key, {aggregate} as users "
            f"from {table} group by {window}, event_key")


def macro_sql(table: str, query: Query, aggregate: str, strategy: str = "auto") -> str:
    return compile_inline(f"{{{{ window_tvf.window_aggregate({relation(table)}, {query.window}, 'event_key', "
                          f"{{'users': '{aggregate}'}}, strategy='{strategy}') }}}}")


def run_speed(spark, rows: int, shapes: list, queries: list[Query], repeats: int) -> list[str]:
    lines = ["| shape | query | exact (s) | Spark count(distinct) (s) | exact / Spark | approx (s) | "
             "Spark approx_count_distinct (s) | approx / Spark count(distinct) |", "|" + "---|" * 8]
    for shape in shapes:
        table = user_table(spark, shape, rows)
        for query in queries:
            sql = {
                "exact": macro_sql(table, query, "count(distinct user_id)"),
                "approx": macro_sql(table, query, "approx_distinct(user_id)"),
                "spark_exact": native_sql(table, query.native, "count(distinct user_id)") if query.native
                else macro_sql(table, query, "count(distinct user_id)", "rows"),
                "spark_approx": native_sql(table, query.native, "approx_count_distinct(user_id)") if query.native
                else macro_sql(table, query, "approx_count_distinct(user_id)", "rows"),
            }
            began = time.monotonic()
            runs = timed_rounds(spark, sql, repeats, TIMEOUT_S, progress=lambda round_number, name, seconds: print(
                f"  {shape.name} / {query.name} / {name}: {cell(seconds, TIMEOUT_S)} s", flush=True))
            seconds = {name: statistics.median(runs[name]) if runs.get(name) else None for name in sql}
            line = (f"| {shape.label} | {query.name}{'' if query.native else ' (baseline: row path)'} | "
                    f"{cell(seconds['exact'], TIMEOUT_S)} | {cell(seconds['spark_exact'], TIMEOUT_S)} | "
                    f"{ratio(seconds['exact'], seconds['spark_exact'])} | {cell(seconds['approx'], TIMEOUT_S)} | "
                    f"{cell(seconds['spark_approx'], TIMEOUT_S)} | {ratio(seconds['approx'], seconds['spark_exact'])} |")
            print(line, f"({time.monotonic() - began:.0f} s)", flush=True)
            lines.append(line)
    return lines


def run_growth(spark, sizes: list[int], shapes: list, queries: list[Query]) -> list[str]:
    """Seconds of the exact and approximate sliced paths at each size, against a floor measured beside them (one
    GROUP BY key, day with count(*): what the machine does with that many rows); growth is the time per row at a
    size over the time per row at the smallest size (1.00 is linear)."""
    lines = ["| shape | query | rows | exact (s) | approx (s) | floor: GROUP BY key, day (s) | exact growth | "
             "approx growth | floor growth |", "|" + "---|" * 9]
    for shape in shapes:
        for query in queries:
            per_row: dict[str, float] = {}
            for rows in sizes:
                table = user_table(spark, shape, rows)
                sql = {
                    "exact": macro_sql(table, query, "count(distinct user_id)"),
                    "approx": macro_sql(table, query, "approx_distinct(user_id)"),
                    "floor": f"select event_key, to_date(ts) as day, count(*) as events from {table} group by 1, 2",
                }
                runs = timed_rounds(spark, sql, 1, TIMEOUT_S, progress=lambda round_number, name, seconds: print(
                    f"  {shape.name} / {query.name} / {rows:,} / {name}: {cell(seconds, TIMEOUT_S)} s", flush=True))
                seconds = {name: runs[name][0] if runs.get(name) else None for name in sql}
                growth = {}
                for name, value in seconds.items():
                    if value is not None:
                        per_row.setdefault(name, value / rows)
                    growth[name] = f"{value / rows / per_row[name]:.2f}" if value and name in per_row else "n/a"
                line = (f"| {shape.label} | {query.name} | {rows:,} | {cell(seconds['exact'], TIMEOUT_S)} | "
                        f"{cell(seconds['approx'], TIMEOUT_S)} | {cell(seconds['floor'], TIMEOUT_S)} | "
                        f"{growth['exact']} | {growth['approx']} | {growth['floor']} |")
                print(line, flush=True)
                lines.append(line)
    return lines


def run_error(spark, rows: int, lg_ks: list[int]) -> list[str]:
    """Relative error of approx_distinct(user_id, lg_k) against count(distinct user_id) over every window of a
    HOP 7 days / 1 day, per key, for two shapes (10 keys: large counts; 1,000 keys: small ones)."""
    lines = ["| windows of | windows | exact counts (median) | lg_k | mean abs. relative error | RMS relative error | "
             "max abs. relative error | 1.04 / sqrt(2^lg_k) |", "|" + "---|" * 8]
    query = QUERIES[1]
    for shape in [s for s in SHAPES if s.name in ("dense", "uniform")]:
        table = user_table(spark, shape, rows)
        aggregates = {"exact": "count(distinct user_id)", **{f"k{k}": f"approx_distinct(user_id, {k})" for k in lg_ks}}
        sql = compile_inline(f"{{{{ window_tvf.window_aggregate({relation(table)}, {query.window}, 'event_key', "
                             f"{aggregates}) }}}}")
        errors = ", ".join(
            f"avg(abs(k{k} - exact) / exact), sqrt(avg(pow((k{k} - exact) / exact, 2))), max(abs(k{k} - exact) / exact)"
            for k in lg_ks)
        row = spark.sql(f"select count(*), percentile(exact, 0.5), {errors} from ({sql}) as windows").first()
        for index, k in enumerate(lg_ks):
            mean, rms, worst = row[2 + 3 * index:5 + 3 * index]
            line = (f"| {shape.label} | {row[0]:,} | {row[1]:,.0f} | {k} | {mean:.2%} | {rms:.2%} | {worst:.2%} | "
                    f"{1.04 / 2 ** (k / 2):.2%} |")
            print(line, flush=True)
            lines.append(line)
    return lines


def marker_key(text: str) -> str:
    """`text` (row counts, shapes, query names) as part of a doc section's markers: no commas or spaces."""
    return text.replace(",", "_").replace(" ", "_")


def load() -> str:
    return "load average " + ", ".join(f"{value:.1f}" for value in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=int(os.environ.get("ROWS") or 10_000_000))
    parser.add_argument("--shapes", default=os.environ.get("SHAPES") or "dense,uniform,zipf")
    parser.add_argument("--queries", default=os.environ.get("QUERIES") or "")
    parser.add_argument("--repeats", type=int, default=int(os.environ.get("REPEATS") or 1))
    parser.add_argument("--note", default=os.environ.get("NOTE") or "")
    parser.add_argument("--error", action="store_true", help="measure the estimate's error instead of speed")
    parser.add_argument("--growth", default=os.environ.get("GROWTH") or "",
                        help="row counts (comma-separated): the sliced paths' growth with rows instead of the ratios")
    arguments = parser.parse_args()
    spark = SPARK.session()
    before = load()
    began = time.monotonic()
    print(f"Spark {spark.version}, local[2], {arguments.rows:,} rows; {before}; Spark's log: {SPARK.log_file}", flush=True)
    if arguments.error:
        lines = run_error(spark, arguments.rows, [4, 8, 10, 12, 14, 16])
        body = (f"`.venv/bin/python bench/distinct_counts.py --error --rows {arguments.rows}` ({run_stamp()}; Spark "
                f"{spark.version}, {platform.machine()}; {before} at the start, {load()} at the end):\n\n"
                + "\n".join(lines))
        write_section(DOC, "Measured error", "<!-- distinct-error:begin -->", "<!-- distinct-error:end -->", body)
        return
    shapes = [s for s in SHAPES if s.name in arguments.shapes.split(",")]
    queries = [q for q in QUERIES if not arguments.queries or q.name in arguments.queries.split(",")]
    if arguments.growth:
        sizes = sorted(int(size) for size in arguments.growth.split(","))
        # One query unless named: each size of each shape is a new table, and the 7-day hop is the ratios' query.
        lines = run_growth(spark, sizes, shapes, queries if arguments.queries else QUERIES[1:2])
        command = (f"`make bench-distinct GROWTH={','.join(map(str, sizes))} SHAPES={arguments.shapes}"
                   f"{f' QUERIES={chr(34)}{arguments.queries}{chr(34)}' if arguments.queries else ''}`")
        # A table per set of queries: the 7-day hop's (no QUERIES) keeps its first markers.
        key = f":{marker_key(arguments.queries)}" if arguments.queries else ""
        named = f" ({arguments.queries})" if arguments.queries else ""
        write_section(DOC, f"Rolling distinct counts: growth with rows{named}",
                      f"<!-- distinct-growth{key}:begin -->", f"<!-- distinct-growth{key}:end -->",
                      f"{command}: {run_stamp()}; Spark {spark.version}, local[2], one run per query; {before} at the "
                      f"start, {load()} at the end; {(time.monotonic() - began) / 60:.0f} minutes. {arguments.note}\n\n"
                      + "\n".join(lines))
        return
    lines = run_speed(spark, arguments.rows, shapes, queries, arguments.repeats)
    minutes = (time.monotonic() - began) / 60
    summary = (f"{run_stamp()}; {arguments.rows:,} rows, Spark {spark.version}, local[2], {arguments.repeats} run(s) "
               f"per query; {before} at the start, {load()} at the end; {minutes:.0f} minutes. {arguments.note}")
    print(summary)
    key = marker_key(f"{arguments.rows}-{arguments.shapes}-{arguments.queries}")
    write_section(DOC, f"Rolling distinct counts ({arguments.rows:,} rows: {arguments.shapes})",
                  f"<!-- distinct:{key}:begin -->", f"<!-- distinct:{key}:end -->",
                  f"`make bench-distinct ROWS={arguments.rows} SHAPES={arguments.shapes}"
                  f"{f' QUERIES={chr(34)}{arguments.queries}{chr(34)}' if arguments.queries else ''}`: {summary}\n\n"
                  + "\n".join(lines))


if __name__ == "__main__":
    main()
