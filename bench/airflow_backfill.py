"""The hourly DAG's backfill under Airflow's own scheduler against the same intervals under `dag.test()`, interval by
interval, on the same machine and landing files (`make bench-airflow`; its section of docs/airflow_deployment.md).

1. The deployment of `make airflow` (scripts/airflow_local.py: LocalExecutor, tasks on a Spark Connect server) with
   landing files for the INTERVALS hours before now, and `airflow backfill create --max-active-runs 1` over them
   (the DAG unpaused once the backfill exists): each interval's time is its run's (Airflow's start to end), plus the
   wall time of the whole backfill.
2. The same intervals through `dag.test()` in this process on the embedded Spark (as `make pipeline` runs them),
   each timed.

    python bench/airflow_backfill.py [--intervals 24]

Target: an interval under the scheduler within 1.5x of the same interval under dag.test(). The machine's load
(uptime's averages) is recorded before and after each phase: the machine may be shared."""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Callable

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "scripts"))
sys.path.insert(0, str(REPO / "dags"))

from airflow_local import HOURLY_DAG, LocalAirflow, Running, reset, set_paused, start, stop, wait_for_runs  # noqa: E402
from harness import write_section  # noqa: E402  (bench/, this file's directory)

HOME = REPO / ".airflow" / "bench-deployment"
WORK = REPO / ".spark" / "bench-airflow"
DOC = REPO / "docs" / "airflow_deployment.md"
TARGET_RATIO = 1.5


def load() -> str:
    return " / ".join(f"{x:.2f}" for x in os.getloadavg())


def parse_time(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def create_backfill(running: Running, first: datetime, last: datetime, attempts: int = 5) -> None:
    """`airflow backfill create`, again when SQLite reports "database is locked": the CLI's transaction can meet the
    scheduler's (SQLite admits one writer and fails a reader that wants to write at once); a failed attempt
    creates nothing."""
    for attempt in range(1, attempts + 1):
        created = running.airflow("backfill", "create", "--dag-id", HOURLY_DAG, "--from-date", first.isoformat(),
                                  "--to-date", last.isoformat(), "--max-active-runs", "1")
        if created.returncode == 0:
            return
        if "database is locked" not in created.stderr or attempt == attempts:
            raise RuntimeError(f"airflow backfill create failed:\n{created.stdout}\n{created.stderr[-3000:]}")
        print(f"backfill create: database is locked (attempt {attempt}); again", flush=True)
        time.sleep(2)


def scheduler_phase(config: LocalAirflow, intervals: int, inspect: Callable[[Running], Any] | None = None
                    ) -> tuple[list[tuple[datetime, float, str]], dict[str, list[float]], float, str, str, Any]:
    """A new deployment of `config` (its hourly DAG paused, the reference DAG off) and a backfill of `intervals`
    hours from its first interval, one run at a time. Returns (interval start, run seconds, state) per run, each
    task's seconds over the runs, the backfill's wall seconds, the load before/after, and what `inspect` returned
    for the deployment after its last run (before it is stopped)."""
    # A new deployment each time (start resumes a recorded one): the backfill's intervals end before now.
    reset(config, say=lambda line: print(line, flush=True))
    before = load()
    running = start(config, say=lambda line: print(line, flush=True))
    try:
        first = datetime.fromisoformat(running.first_interval)
        last = first + timedelta(hours=intervals - 1)
        began = time.monotonic()
        create_backfill(running, first, last)
        # Backfill runs of a paused DAG stay queued: unpaused now (its catch-up skips the intervals the backfill
        # holds; the next scheduled interval has no landing files, so the DAG is paused again at the end).
        set_paused(running, HOURLY_DAG, False, running.token())
        print(f"backfill created ({intervals} intervals from {first:%Y-%m-%d %H:%M}); waiting", flush=True)
        runs = wait_for_runs(running, HOURLY_DAG, intervals, timeout=intervals * 900)
        wall = time.monotonic() - began
        set_paused(running, HOURLY_DAG, True, running.token())
        # The backfill's runs only (an hour that ended meanwhile may have been scheduled after them).
        runs = [run for run in runs if first <= parse_time(run["data_interval_start"]) <= last]
        per_run = [
            (parse_time(run["data_interval_start"]),
             (parse_time(run["end_date"]) - parse_time(run["start_date"])).total_seconds(), run["state"])
            for run in runs
        ]
        per_task: dict[str, list[float]] = {}
        for run in runs:
            for task_id, instance in run["tasks"].items():
                per_task.setdefault(task_id, []).append(instance.get("duration") or 0.0)
        inspected = inspect(running) if inspect else None
    finally:
        stop(config)
    return per_run, per_task, wall, before, load(), inspected


def dag_test_phase(starts: list[datetime]) -> tuple[list[float], dict[str, list[float]], str, str]:
    """The same intervals through dag.test() on the embedded Spark, over a copy of the same landing files."""
    shutil.rmtree(WORK, ignore_errors=True)
    shutil.copytree(HOME / "landing", WORK / "landing")
    os.environ.update(
        WINDOW_TVF_LANDING_DIR=str(WORK / "landing"),
        WINDOW_TVF_PIPELINE_START=f"{starts[0]:%Y-%m-%dT%H:%M:%SZ}",
        WINDOW_TVF_GX_DIR=str(WORK / "great_expectations"),
        WINDOW_TVF_SPARK_DIR=str(WORK / "spark"),
        WINDOW_TVF_SPARK_CONF_DIR=str(REPO / "spark_conf"),
        DBT_PROFILES_DIR=str(REPO),
        DBT_TARGET_PATH=str(WORK / "dbt" / "target"),
        DBT_LOG_PATH=str(WORK / "dbt" / "logs"),
    )
    from window_tvf_pipeline import dag_runs as local
    from window_tvf_pipeline.config import Settings
    from window_tvf_pipeline.spark import stop_spark

    local.configure_airflow(WORK / "airflow")
    settings = Settings.from_environment()
    local.prepare_airflow(settings)
    hourly = local.load_dag(HOURLY_DAG)
    before, seconds, per_task = load(), [], {}
    try:
        for interval in starts:
            began = time.monotonic()
            outcome = local.run_interval(hourly, interval)
            seconds.append(time.monotonic() - began)
            for task in outcome.tasks:
                per_task.setdefault(task.task_id, []).append(task.seconds)
            print(f"dag.test() [{interval:%H:%M}] {outcome.state} in {seconds[-1]:.0f} s", flush=True)
            if outcome.failed_tasks:
                raise RuntimeError(f"dag.test() failed for {interval}: {outcome.failed_tasks}")
    finally:
        stop_spark()
    return seconds, per_task, before, load()


def task_rows(scheduler: dict[str, list[float]], local: dict[str, list[float]]) -> str:
    """Each task's median seconds (and range) in both phases, in the DAG's order."""
    def cell(values: list[float]) -> str:
        return f"{statistics.median(values):.0f} ({min(values):.0f}-{max(values):.0f})" if values else "-"

    return "\n".join(f"| `{task}` | {cell(scheduler.get(task, []))} | {cell(local.get(task, []))} |"
                     for task in [*scheduler, *(t for t in local if t not in scheduler)])


def report(per_run: list, wall: float, scheduler_load: tuple[str, str], local: list[float],
           local_load: tuple[str, str], command: str, tasks: str) -> str:
    sched = [seconds for _, seconds, _ in per_run]
    ratio = statistics.mean(sched) / statistics.mean(local)
    ratio_warm = statistics.mean(sched[1:]) / statistics.mean(local[1:]) if len(local) > 1 else ratio
    met = "met" if ratio <= TARGET_RATIO else "missed"
    rows = "\n".join(
        f"| {start:%Y-%m-%d %H:%M} | {state} | {seconds:.0f} | {test:.0f} | {seconds / test:.2f} |"
        for (start, seconds, state), test in zip(per_run, local)
    )
    return f"""Made by `{command}` on {datetime.now():%Y-%m-%d %H:%M} UTC (2 cores, 24 GiB; the machine is shared with other
work, see the load averages). Both phases ran the same {len(per_run)} hourly intervals over the same generated
landing files (the small shape, about 480 events an hour).

- **Scheduler**: `make airflow`'s deployment (LocalExecutor, SQLite, tasks on one Spark Connect server, side by
  side where the DAG allows), `airflow backfill create --dag-id {HOURLY_DAG} --from-date ...
  --to-date ... --max-active-runs 1` (the DAG unpaused once the backfill exists); each interval's time is its run's, start to end, as Airflow records it. The whole backfill took
  {wall:.0f} s from `backfill create` to the last run's end ({wall / len(per_run):.0f} s per interval, scheduling
  gaps included). Load averages (1/5/15 min) before: {scheduler_load[0]}, after: {scheduler_load[1]}.
- **dag.test()**: the same intervals one after another in one process on the embedded Spark (`make pipeline`'s
  path: every task of every run shares one SparkSession). Load before: {local_load[0]}, after: {local_load[1]}.

| | scheduler (s per interval) | dag.test() (s per interval) | ratio |
|---|---|---|---|
| mean, all intervals | {statistics.mean(sched):.0f} | {statistics.mean(local):.0f} | {ratio:.2f} |
| mean, without the first (dag.test() starts its JVM there) | {statistics.mean(sched[1:] or sched):.0f} | {statistics.mean(local[1:] or local):.0f} | {ratio_warm:.2f} |
| median | {statistics.median(sched):.0f} | {statistics.median(local):.0f} | {statistics.median(sched) / statistics.median(local):.2f} |

Target: within {TARGET_RATIO}x of dag.test() per interval: **{met}** ({ratio:.2f}x over all intervals).

| interval | state | scheduler (s) | dag.test() (s) | ratio |
|---|---|---|---|---|
{rows}

Per task, median seconds over the intervals (fastest-slowest); under the scheduler `build_event_windows` and the
price path run side by side, then `check_order_windows` beside `build_priced_orders`:

| task | scheduler | dag.test() |
|---|---|---|
{tasks}
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--intervals", type=int, default=24)
    parser.add_argument("--doc", type=Path, default=DOC)
    args = parser.parse_args()
    # Given hours: the deployment's DAG then has an end_date, so no hour that ends during the backfill runs beside it.
    first = datetime.now(timezone.utc).replace(minute=0, second=0, microsecond=0) - timedelta(hours=args.intervals)
    config = LocalAirflow(home=HOME, hours=args.intervals, feed_hours=0, unpause_hourly=False, run_reference=False,
                          first=first)
    per_run, scheduler_tasks, wall, *scheduler_load, _ = scheduler_phase(config, args.intervals)
    for start_, seconds, state in per_run:
        print(f"scheduler [{start_:%H:%M}] {state} in {seconds:.0f} s", flush=True)
    if any(state != "success" for _, _, state in per_run):
        print("error: some backfill runs failed; see .airflow/bench-deployment/logs", file=sys.stderr)
        return 1
    local, local_tasks, *local_load = dag_test_phase([start_ for start_, _, _ in per_run])
    command = "make bench-airflow" + (f" BENCH_AIRFLOW_INTERVALS={args.intervals}" if args.intervals != 24 else "")
    text = report(per_run, wall, tuple(scheduler_load), local, tuple(local_load), command,
                  task_rows(scheduler_tasks, local_tasks))
    # The doc's own text (what the runs mean, earlier runs) stays; the measured section is replaced.
    write_section(args.doc, "The last run", "<!-- airflow-backfill:begin -->", "<!-- airflow-backfill:end -->", text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
