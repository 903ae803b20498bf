"""Does a dbt microbatch backfill of window models cost the same per batch after many batches as in the first ones?
Generates `--hours` hours of events (`--events-per-hour`, partitioned by event hour), builds four window models as
dbt microbatch models (window_tvf.window_aggregate: HOP 1 h / 15 min, SESSION 10 min, CUMULATE 1 h / 1 day, New
York's local day) over the last `--batches` hourly batches in one `dbt run`, times every batch, reads from Spark's
executed plans how many input partitions and rows each batch read, and writes docs/benchmarks/microbatch_backfill.md's
results.

    make bench-microbatch                                   # 72 hours, 48 batches per model (about 10 minutes)
    make bench-microbatch MICROBATCH_ARGS="--hours 12 --batches 8"   # a short check of the command

Targets (issue 23): per model, the mean of the last 8 batches at most 1.10 x the mean of batches 2-9, and a line
fitted through batches 2..N rising less than 1% of the mean batch time per batch; every batch reads the same
number of input partitions (its reach), whatever was written before it. Batch 1 creates the table and is left out.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import textwrap
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

from harness import BENCHMARKS, REPO, BenchSpark, dbt

WORK = REPO / ".spark" / "bench-microbatch"
SCHEMA = "microbatch_bench"
START = datetime(2026, 10, 30, 0, 0, tzinfo=timezone.utc)
HINTS = "'arrival_partition': {'column': 'event_hour', 'period': '1 hour'}, 'allowed_lateness': '0 seconds'"
MODELS = {
    "hop_1h_15m": ("{'tvf': 'hop', 'timecol': 'event_time', 'slide': '15 minutes', 'size': '1 hour', " + HINTS + "}",
                   "'item_id'"),
    "session_10m": ("{'tvf': 'session', 'timecol': 'event_time', 'gap': '10 minutes', 'partition_by': 'user_id', "
                    + HINTS + "}", "'user_id'"),
    "cumulate_1h_1d": ("{'tvf': 'cumulate', 'timecol': 'event_time', 'step': '1 hour', 'size': '1 day', " + HINTS + "}",
                       "'item_id'"),
    "day_new_york": ("{'tvf': 'tumble', 'timecol': 'event_time', 'size': '1 day', 'time_zone': 'America/New_York', "
                     + HINTS + "}", "'item_id'"),
}


def _project(root: Path) -> None:
    files = {
        "dbt_project.yml": """
            name: microbatch_bench
            version: "1.0.0"
            config-version: 2
            profile: microbatch_bench
            models:
              microbatch_bench:
                +materialized: incremental
                +incremental_strategy: microbatch
                +event_time: window_time
                +batch_size: hour
                +begin: "2026-10-30"
                +partition_by: [window_hour]
                +file_format: parquet
        """,
        "packages.yml": f"""
            packages:
              - local: {REPO}
        """,
        "profiles.yml": f"""
            microbatch_bench:
              target: embedded
              outputs:
                embedded: {{type: spark, method: session, host: localhost, schema: {SCHEMA}}}
        """,
        "models/sources.yml": f"""
            sources:
              - name: bench
                schema: {SCHEMA}
                tables:
                  - name: events
                    config: {{event_time: event_time}}
        """,
    }
    for name, (window, keys) in MODELS.items():
        files[f"models/mb_{name}.sql"] = (
            f"{{{{ window_tvf.window_aggregate(source('bench', 'events'), {window}, {keys}, "
            "{'orders': 'count(*)', 'quantity': 'sum(quantity)'}) }}\n"
        )
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(textwrap.dedent(text).lstrip())


def _generate(spark, hours: int, per_hour: int) -> None:
    """Events spread over the hours, 20,000 users in bursts (a user's events of an hour within ten minutes, so
    sessions form), 500 items; a pure function of the event number."""
    total = hours * per_hour
    step = 3_600_000_000 // per_hour
    spark.sql(f"create database if not exists {SCHEMA}")
    spark.sql(f"drop table if exists {SCHEMA}.events")
    spark.sql(f"""
        create table {SCHEMA}.events using parquet partitioned by (event_hour) as
        select
            concat('u', pmod(hash(id div 7, 1), 20000)) as user_id,
            concat('item_', pmod(hash(id, 2), 500)) as item_id,
            cast(pmod(hash(id, 3), 5) + 1 as int) as quantity,
            timestamp_micros({_micros(START)} + id * {step} + pmod(hash(id, 4), 600000000)) as event_time,
            date_trunc('HOUR', timestamp_micros({_micros(START)} + id * {step} + pmod(hash(id, 4), 600000000))) as event_hour
        from range({total})
    """)


def _micros(instant: datetime) -> int:
    return int((instant - datetime(1970, 1, 1, tzinfo=timezone.utc)).total_seconds()) * 1_000_000


def _fit(points: list[tuple[int, float]]) -> float:
    xs, ys = [x for x, _ in points], [y for _, y in points]
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    return sum((x - mx) * (y - my) for x, y in points) / sum((x - mx) ** 2 for x in xs)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hours", type=int, default=72, help="hours of events (default 72)")
    parser.add_argument("--batches", type=int, default=48, help="hourly batches built, the last ones (default 48)")
    parser.add_argument("--events-per-hour", type=int, default=50_000)
    parser.add_argument("--no-write", action="store_true",
                        help="print, do not write docs/benchmarks/microbatch_backfill.md")
    args = parser.parse_args()
    shutil.rmtree(WORK, ignore_errors=True)
    WORK.mkdir(parents=True)
    bench = BenchSpark(WORK, log_file=WORK / "spark.log")
    bench.configure_environment()
    spark = bench.session()
    sys.path.insert(0, str(REPO / "dags"))
    from window_tvf_pipeline.spark import last_execution_id, queries_since

    print(f"Generating {args.hours} hours of {args.events_per_hour:,} events ...", flush=True)
    _generate(spark, args.hours, args.events_per_hour)
    root = WORK / "project"
    _project(root)
    dbt(["deps"], WORK / "logs", project_dir=root)
    first = START + timedelta(hours=args.hours - args.batches)
    last = START + timedelta(hours=args.hours)
    batches: dict[str, list[float]] = {name: [] for name in MODELS}
    reads: dict[str, list[tuple[int, int]]] = {name: [] for name in MODELS}
    # Spark's status store keeps the last 1,000 executions, fewer than a backfill runs: each batch's reads are taken
    # from the plans as soon as dbt reports the batch.
    seen = {"mark": last_execution_id(spark)}

    def take_reads() -> None:
        for query in queries_since(spark, seen["mark"]):
            seen["mark"] = max(seen["mark"], query.execution_id)
            model = (query.written_table or "").split(".")[-1].removeprefix("mb_")
            for scan in query.scans if model in reads else []:
                if scan.table.endswith(".events"):
                    reads[model].append((scan.partitions_read, scan.rows))

    def on_event(event) -> None:
        if event.info.name == "LogBatchResult" and event.data.status not in ("error", "skipped"):
            model = event.data.description.rsplit(".", 1)[-1].removeprefix("mb_")
            batches[model].append(float(event.data.execution_time))
            take_reads()
            print(f"  {model:<16} batch {event.data.batch_index:>3}/{event.data.total_batches}: "
                  f"{event.data.execution_time:5.2f} s", flush=True)

    began = time.time()
    dbt(["run", "--event-time-start", f"{first:%Y-%m-%dT%H:%M:%S}", "--event-time-end", f"{last:%Y-%m-%dT%H:%M:%S}"],
        WORK / "logs", project_dir=root, callbacks=[on_event])
    wall = time.time() - began
    report = _report(args, batches, reads, wall)
    print("\n".join(report))
    if not args.no_write:
        _write(report)
    return 0


def _report(args, batches: dict[str, list[float]], reads: dict[str, list[tuple[int, int]]], wall: float) -> list[str]:
    lines = [
        f"`make bench-microbatch` ({datetime.now():%Y-%m-%d}; {args.hours} hours of {args.events_per_hour:,} events an "
        f"hour, the last {args.batches} hourly batches of each model in one `dbt run`: {wall:.0f} s; local[2])",
        "",
        "| model | batches | mean s (2-9) | mean s (last 8) | ratio | slope s/batch | slope / mean | input partitions per batch | input rows per batch |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for name, times in batches.items():
        timed = times[1:]
        early, late = timed[:8], timed[-8:]
        slope = _fit(list(enumerate(timed, start=2)))
        mean = statistics.fmean(timed)
        partitions = sorted({p for p, _ in reads[name][1:]})
        rows = [r for _, r in reads[name][1:]]
        ratio = statistics.fmean(late) / statistics.fmean(early)
        lines.append(
            f"| {name} | {len(times)} | {statistics.fmean(early):.2f} | {statistics.fmean(late):.2f} | {ratio:.2f} "
            f"{'met' if ratio <= 1.10 else '**missed**'} | {slope:+.4f} | {slope / mean:+.2%} "
            f"{'met' if slope / mean < 0.01 else '**missed**'} | {'-'.join(map(str, partitions[:1] + partitions[-1:]))} "
            f"| {min(rows):,}-{max(rows):,} |"
        )
    return lines


def _write(report: list[str]) -> None:
    doc = BENCHMARKS / "microbatch_backfill.md"
    text = doc.read_text()
    begin, end = "<!-- bench-microbatch -->", "<!-- /bench-microbatch -->"
    head, rest = text.split(begin, 1)
    tail = rest.split(end, 1)[1]
    doc.write_text(head + begin + "\n" + "\n".join(report) + "\n" + end + tail)
    print(f"Wrote {doc.relative_to(REPO)}")


if __name__ == "__main__":
    raise SystemExit(main())
