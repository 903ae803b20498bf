"""Benchmark: the window aggregation's write step on parquet, Delta Lake and Apache Iceberg tables, in one run, on
the three key shapes of bench/window_aggregation.py (issue 38, item 4).

    make bench-formats                                  # 3 M events per shape, median of 3 runs (about 8 minutes)
    .venv-formats/bin/python bench/table_format_writes.py --rows 300000 --repeats 1   # a quick check

One local[2] SparkSession on pyspark 4.0 (the newest Spark with a release of both formats, docs/table_formats.md)
holds all three: Spark's session catalog is Delta's (it keeps parquet tables as they are) and Iceberg's tables live
in a Hadoop catalog of their own (`ice`). The query is window_aggregate's hourly TUMBLE (count, sum, min, max per key
and window) over 30 days of events, compiled by dbt in the same JVM; its output is partitioned by the window's day,
as the example pipeline's interval models are. Timed, each as the median of the runs (the steps run in turn, so none
alone pays for a cold start):

- compute only: the query into Spark's no-op sink (the floor of every write);
- full build: what dbt's `table` materialization runs (parquet: drop, then `create table ... as`; Delta and Iceberg:
  `create or replace table ... as`, one atomic commit);
- one day again, three ways: `insert overwrite ... partition (window_date)` with dynamic partition overwrite
  (dbt-spark's insert_overwrite and microbatch), Delta's `replaceWhere` (dbt-databricks' replace_where), and
  `merge into` by the window keys (dbt-spark's merge, with the day's partition in the join condition).

Every table ends with the same rows (checked: a difference fails the run). Output: a table on stdout and in
docs/benchmarks/table_format_writes.md; Spark's log in .spark/bench-formats/spark.log.
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import sys
import time

from harness import (BENCHMARKS, REPO, BenchSpark, cell, compile_inline, event_table, ratio, relation, timed_rounds,
                     write_section)
from window_aggregation import SHAPES, Shape  # the same data as the window aggregation benchmark

BENCH_DIR = REPO / ".spark" / "bench-formats"
SPARK = BenchSpark(BENCH_DIR / "spark", log_file=BENCH_DIR / "spark.log")
SPARK.configure_environment()
JARS = {"delta": REPO / ".spark" / "jars" / "delta-spark4.0", "iceberg": REPO / ".spark" / "jars" / "iceberg-spark4.0"}
ICEBERG_WAREHOUSE = BENCH_DIR / "iceberg"
SCHEMA = "window_tvf_bench"
TIMEOUT_S = 900
DAYS, START = 30, "2024-01-01 00:00:00"
REWRITTEN_DAY = "2024-01-15"
WINDOW = {"tvf": "tumble", "timecol": "ts", "size": "1 hour"}
AGGREGATES = {"events": "count(*)", "total": "sum(amount)", "smallest": "min(amount)", "largest": "max(amount)"}
FORMATS = ("parquet", "delta", "iceberg")
KEYS = "window_start, event_key"


def session():
    """The bench's SparkSession with both formats' jars, extensions and catalogs (before dbt takes it over)."""
    jars = sorted(str(jar) for folder in JARS.values() for jar in folder.glob("*.jar"))
    missing = [name for name, folder in JARS.items() if not (folder / ".fetched").exists()]
    if missing:
        sys.exit(f"The {', '.join(missing)} jars are missing: make {' '.join(f'.spark/jars/{n}-spark4.0/.fetched' for n in missing)}")
    return SPARK.session({
        "spark.jars": ",".join(jars),
        "spark.sql.extensions": "io.delta.sql.DeltaSparkSessionExtension,"
                                "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions",
        "spark.sql.catalog.spark_catalog": "org.apache.spark.sql.delta.catalog.DeltaCatalog",
        "spark.sql.catalog.ice": "org.apache.iceberg.spark.SparkCatalog",
        "spark.sql.catalog.ice.type": "hadoop",
        "spark.sql.catalog.ice.warehouse": str(ICEBERG_WAREHOUSE),
        "spark.sql.sources.partitionOverwriteMode": "dynamic",
    })


def table_name(table_format: str, shape: Shape) -> str:
    return f"ice.{SCHEMA}.agg_{shape.name}" if table_format == "iceberg" else f"{SCHEMA}.agg_{table_format}_{shape.name}"


def full_build(table_format: str, table: str, query: str) -> list[str]:
    """The statements of dbt-spark's table materialization for the format."""
    partitioned = f"using {table_format} partitioned by (window_date)"
    if table_format == "parquet":
        return [f"drop table if exists {table}", f"create table {table} {partitioned} as {query}"]
    return [f"create or replace table {table} {partitioned} as {query}"]


def merge(table: str, day_query: str) -> str:
    return (f"merge into {table} as t using ({day_query}) as s on t.window_date = date'{REWRITTEN_DAY}' and "
            f"t.window_start = s.window_start and t.event_key = s.event_key "
            f"when matched then update set * when not matched then insert *")


def run_statements(spark, statements: list[str]) -> None:
    for statement in statements:
        spark.sql(statement).collect()


def timed_steps(spark, steps: dict[str, object], rounds: int) -> dict[str, float | None]:
    """Median seconds per step (a step: SQL for the no-op sink, or a callable that writes), run in turn `rounds` times."""
    import statistics

    noop = {name: step for name, step in steps.items() if isinstance(step, str)}
    runs: dict[str, list[float]] = {name: [] for name in steps}
    for _ in range(rounds):
        for name, step in steps.items():
            if name in noop:
                seconds = timed_rounds(spark, {name: step}, 1, TIMEOUT_S)[name]
                runs[name].extend(seconds or [])
            else:
                began = time.perf_counter()
                step()  # type: ignore[operator]
                runs[name].append(time.perf_counter() - began)
            print(f"    {name}: {runs[name][-1]:.2f} s" if runs[name] else f"    {name}: timed out", flush=True)
    return {name: statistics.median(seconds) if seconds else None for name, seconds in runs.items()}


def same_rows(spark, tables: list[str], reference_sql: str) -> None:
    """Every table holds exactly the reference query's rows (a write that lost or doubled one fails the run)."""
    reference = spark.sql(reference_sql)
    for table in tables:
        stored = spark.table(table).select(*reference.columns)
        missing, extra = reference.exceptAll(stored).count(), stored.exceptAll(reference).count()
        if missing or extra:
            raise RuntimeError(f"{table}: {missing} rows missing, {extra} extra against the query's rows")


def measure_shape(spark, shape: Shape, rows: int, repeats: int) -> dict[str, float | None]:
    events = event_table(spark, BENCH_DIR / "data", f"{shape.name}_{rows}", rows, shape.key_sql, START, DAYS,
                         f"{SCHEMA}.events_{shape.name}")
    day_events = f"{SCHEMA}.events_{shape.name}_day"
    spark.sql(f"drop table if exists {day_events}")
    spark.sql(f"create table {day_events} using parquet as select * from {events} where to_date(ts) = date'{REWRITTEN_DAY}'")
    aggregate = compile_inline(
        f"{{{{ window_tvf.window_aggregate({relation(events)}, {WINDOW!r}, 'event_key', {AGGREGATES!r}) }}}}",
        BENCH_DIR / "dbt_logs")
    day_aggregate = compile_inline(
        f"{{{{ window_tvf.window_aggregate({relation(day_events)}, {WINDOW!r}, 'event_key', {AGGREGATES!r}) }}}}",
        BENCH_DIR / "dbt_logs")
    query = f"select *, to_date(window_start) as window_date from ({aggregate}) as windows"
    day_query = f"select *, to_date(window_start) as window_date from ({day_aggregate}) as windows"
    tables = {fmt: table_name(fmt, shape) for fmt in FORMATS}
    for fmt, table in tables.items():  # each table exists before the timed runs, so every run does the same work
        run_statements(spark, full_build(fmt, table, query))
    rows_out = spark.table(tables["parquet"]).count()
    print(f"  {shape.label}: {rows:,} events -> {rows_out:,} windows; the day rewritten: {REWRITTEN_DAY}", flush=True)

    def write(statements: list[str]):
        return lambda: run_statements(spark, statements)

    def replace_where() -> None:
        (spark.sql(day_query).write.format("delta").mode("overwrite")
         .option("replaceWhere", f"window_date = date'{REWRITTEN_DAY}'").saveAsTable(tables["delta"]))

    steps: dict[str, object] = {"compute": query}
    for fmt, table in tables.items():
        steps[f"full {fmt}"] = write(full_build(fmt, table, query))
    for fmt, table in tables.items():
        steps[f"overwrite {fmt}"] = write([f"insert overwrite table {table} partition (window_date) {day_query}"])
    steps["replaceWhere delta"] = replace_where
    for fmt in ("delta", "iceberg"):
        steps[f"merge {fmt}"] = write([merge(tables[fmt], day_query)])
    seconds = timed_steps(spark, steps, repeats)
    same_rows(spark, list(tables.values()), query)
    seconds["windows"] = rows_out
    return seconds


def lines(results: dict[str, dict[str, float | None]]) -> list[str]:
    table = [
        "| data | windows written | compute only s | full build s: parquet / Delta / Iceberg | x parquet: Delta / "
        "Iceberg | x compute: parquet / Delta / Iceberg | one day: insert overwrite s, parquet / Delta / Iceberg | "
        "Delta replaceWhere s | MERGE s: Delta / Iceberg |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for label, s in results.items():
        full = [s[f"full {fmt}"] for fmt in FORMATS]
        table.append(
            f"| {label} | {int(s['windows'] or 0):,} | {cell(s['compute'], TIMEOUT_S)} | "
            f"{' / '.join(cell(x, TIMEOUT_S) for x in full)} | {ratio(full[1], full[0])} / {ratio(full[2], full[0])} | "
            f"{' / '.join(ratio(x, s['compute']) for x in full)} | "
            f"{' / '.join(cell(s[f'overwrite {fmt}'], TIMEOUT_S) for fmt in FORMATS)} | "
            f"{cell(s['replaceWhere delta'], TIMEOUT_S)} | "
            f"{cell(s['merge delta'], TIMEOUT_S)} / {cell(s['merge iceberg'], TIMEOUT_S)} |")
    return table


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=3_000_000, help="events per key shape (default 3 M)")
    parser.add_argument("--repeats", type=int, default=3, help="runs per step; the median is reported (default 3)")
    parser.add_argument("--note", default="", help="conditions of the run, written into the doc")
    args = parser.parse_args()
    began = time.monotonic()
    shutil.rmtree(ICEBERG_WAREHOUSE, ignore_errors=True)  # the Hadoop catalog's tables: their metadata is in them
    spark = session()
    print(f"Spark {spark.version}; Spark's log: {SPARK.log_file}", flush=True)
    spark.sql(f"create database if not exists {SCHEMA}")
    spark.sql(f"create namespace if not exists ice.{SCHEMA}")
    results = {}
    for shape in SHAPES:
        results[shape.label] = measure_shape(spark, shape, args.rows, args.repeats)
    minutes = (time.monotonic() - began) / 60
    table = "\n".join(lines(results))
    print(f"\n{table}\n\nTotal: {minutes:.1f} minutes", flush=True)
    if args.rows == 3_000_000 or args.note:
        write_doc(table, args, minutes, spark.version)
    return 0


def write_doc(table: str, args: argparse.Namespace, minutes: float, spark_version: str) -> None:
    note = f" **Conditions: {args.note}.**" if args.note else ""
    body = f"""Made by `make bench-formats` (`bench/table_format_writes.py`, {minutes:.0f} minutes, {time.strftime('%Y-%m-%d')}) on
{platform.node() or 'the reference machine'}: {os.cpu_count()} cores, Spark {spark_version} local[2], Delta Lake 4.0.1 and
Iceberg 1.10.1 in one session; {args.rows:,} events per key shape over {DAYS} days, window_aggregate's hourly TUMBLE
(count, sum, min, max) per key, partitioned by the window's day; the median of {args.repeats} runs per step.{note}

{table}

"Full build" is what dbt's table materialization runs; "one day" rewrites the windows of {REWRITTEN_DAY} (the day's
events aggregated again): `insert overwrite` with dynamic partition overwrite (insert_overwrite and microbatch),
Delta's `replaceWhere`, and `merge into` on the window keys with the day's partition in its condition. Every table
held the query's rows exactly at the end of the run."""
    write_section(BENCHMARKS / "table_format_writes.md", "Results", "<!-- bench-formats: begin -->",
                  "<!-- bench-formats: end -->", body)


if __name__ == "__main__":
    sys.exit(main())
