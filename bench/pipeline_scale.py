"""Does an hourly run stay as fast after days of history as in the first hours? Generates `--hours` hours of the
`--large` order events (about 50,000 an hour), runs the hourly DAG over them one interval after another in one
process (`dag.test()`, as `make pipeline` does), times every interval and each of its tasks, reads from Spark's
executed plans how many rows each model read, and writes docs/benchmarks/pipeline_scale.md with a chart.

    make bench-pipeline                        # 72 hours (about 65 minutes on 2 quiet cores)
    make bench-pipeline BENCH_HOURS=8          # a short check of the command (ratio over 3 intervals a side)

Targets (issue 13): the mean of the last 6 intervals at most 1.10 x the mean of intervals 1-6, and a line fitted
through intervals 1..N-1 rising less than 0.05 s per interval. Interval 0 is left out of both: it pays the JVM
start, dbt's full parse and creating every table. Everything runs in a directory of its own (.spark/bench-pipeline:
warehouse, metastore, Airflow, landing files, logs), started empty.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

from harness import BENCHMARKS, REPO

WORK = REPO / ".spark" / "bench-pipeline"
SCHEMA = "orders_bench"


def _environment() -> None:
    """Before anything imports Airflow or starts Spark: this run's own directories."""
    shutil.rmtree(WORK, ignore_errors=True)
    WORK.mkdir(parents=True)
    os.environ.update(
        WINDOW_TVF_SPARK_DIR=str(WORK),
        WINDOW_TVF_SPARK_CONF_DIR=str(REPO / "spark_conf"),
        WINDOW_TVF_LANDING_DIR=str(WORK / "landing"),
        WINDOW_TVF_GX_DIR=str(WORK / "great_expectations"),
        WINDOW_TVF_SCHEMA=SCHEMA,
        DBT_PROFILES_DIR=str(REPO),
        DBT_SEND_ANONYMOUS_USAGE_STATS="False",
    )
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    sys.path.insert(0, str(REPO / "dags"))


def _fit(points: list[tuple[int, float]]) -> float:
    """Least-squares slope (seconds per interval)."""
    xs, ys = [x for x, _ in points], [y for _, y in points]
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    return sum((x - mx) * (y - my) for x, y in points) / sum((x - mx) ** 2 for x in xs)


def _rows_read(queries: list) -> dict[str, dict[str, int]]:
    """{model: {table scanned: rows}} for the queries that wrote a pipeline model."""
    from window_tvf_pipeline.config import WRITTEN_TABLES

    reads: dict[str, dict[str, int]] = {}
    for query in queries:
        model = (query.written_table or "").split(".")[-1]
        if model in WRITTEN_TABLES:
            for scan in query.scans:
                source = scan.table.split(".")[-1]
                reads.setdefault(model, {})[source] = reads.get(model, {}).get(source, 0) + scan.rows
    return reads


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--hours", type=int, default=72, help="hourly intervals to generate and run (at least 3)")
    parser.add_argument("--doc", type=Path, default=BENCHMARKS / "pipeline_scale.md")
    args = parser.parse_args()
    if args.hours < 3:
        parser.error("--hours must be at least 3: interval 0 is left out, the ratio compares first and last intervals")
    _environment()

    from rich.console import Console

    from window_tvf_pipeline import dag_runs
    from window_tvf_pipeline.config import Settings
    from window_tvf_pipeline.generate import LARGE, write_landing
    from window_tvf_pipeline.run import LogFile
    from window_tvf_pipeline.spark import last_execution_id, queries_since, spark_session, stop_spark

    log = LogFile(WORK / "bench.log")
    console = Console(file=log.terminal, highlight=False, soft_wrap=True)
    console.print(f"Full logs: {log.path}")
    settings = Settings.from_environment()
    load_before = os.getloadavg()
    began = time.monotonic()
    events = write_landing(settings.landing_dir, settings.start, args.hours, LARGE)
    console.print(f"Generated {events} event lines for {args.hours} hours in {time.monotonic() - began:.0f} s")
    dag_runs.configure_airflow(WORK / "airflow")
    dag_runs.prepare_airflow(settings)
    hourly = dag_runs.load_dag("window_tvf_orders_hourly")
    results = []
    try:
        for n in range(args.hours):
            start = settings.start + timedelta(hours=n)
            mark = last_execution_id(spark_session(settings)) if n else -1
            began = time.monotonic()
            outcome = dag_runs.run_interval(hourly, start)
            seconds = time.monotonic() - began
            if outcome.failed_tasks:
                console.print(f"[bold red]Interval {n} failed in {outcome.failed_tasks}; see {log.path}[/]")
                return 1
            reads = _rows_read(queries_since(spark_session(settings), mark))
            results.append({
                "interval": n, "start": start.isoformat(), "seconds": round(seconds, 2),
                "tasks": {t.task_id: round(t.seconds, 2) for t in outcome.tasks}, "rows_read": reads,
            })
            total = sum(sum(r.values()) for r in reads.values())
            console.print(f"interval {n:>3} [{start:%m-%d %H:%M}] {seconds:6.1f} s, rows read by the models {total:>9,}")
    finally:
        stop_spark()
    load_after = os.getloadavg()
    times = [(r["interval"], r["seconds"]) for r in results]
    slope = _fit(times[1:])
    # The last 6 against intervals 1-6; a run shorter than 13 hours compares k = (hours - 1) // 2 on each side.
    k = min(6, (args.hours - 1) // 2)
    ratio = statistics.fmean(s for _, s in times[-k:]) / statistics.fmean(s for _, s in times[1 : k + 1])
    console.print(f"Slope {slope:+.3f} s per interval (target < 0.05); last {k} / intervals 1-{k}: {ratio:.3f} (target <= 1.10)")
    machine = {"cores": os.cpu_count(), "load_before": load_before, "load_after": load_after,
               "finished": datetime.now(timezone.utc).isoformat(timespec="seconds")}
    data = {"hours": args.hours, "events": events, "slope": slope, "ratio": ratio, "ratio_intervals": k,
            "machine": machine, "intervals": results}
    (args.doc.with_suffix(".json")).write_text(json.dumps(data, indent=1) + "\n")
    from pipeline_scale_report import write_report

    write_report(data, args.doc)
    console.print(f"Wrote {args.doc}, {args.doc.with_suffix('.png')} and {args.doc.with_suffix('.json')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
