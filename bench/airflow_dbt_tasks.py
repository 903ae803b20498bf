"""One Airflow task per dbt model (astronomer-cosmos' watcher mode) against the coarse tasks (one per dbt build step),
under Airflow's own scheduler, interval by interval (`make bench-airflow-tasks`; its section of
docs/airflow_deployment.md).

Two deployments of `make airflow` (scripts/airflow_local.py: LocalExecutor, tasks on a Spark Connect server), one
after the other on the same machine, with the same first interval and so the same landing files: the first with
`window_tvf_dbt_tasks=coarse`, the second with `per_model`; each runs `airflow backfill create --max-active-runs 1`
over the same INTERVALS hours (bench/airflow_backfill.py's scheduler phase). Each interval's time is its run's
(Airflow's start to end). At the end every pipeline table of one deployment is compared with the other's.

    python bench/airflow_dbt_tasks.py [--intervals 4] [--modes per_model]

Target (issue 37): an interval with per-model tasks at most 1.2x the same interval with the coarse tasks."""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "scripts"))
sys.path.insert(0, str(REPO / "dags"))

from airflow_backfill import load, scheduler_phase  # noqa: E402  (bench/, this file's directory)
from airflow_local import LocalAirflow, Running  # noqa: E402
from window_tvf_pipeline.model_tasks import MODEL_TASKS_DONE, STEP_DONE  # noqa: E402
from harness import write_section  # noqa: E402

sys.path.insert(0, str(REPO / "tests" / "python"))
from pipeline_child import dump_in_a_process  # noqa: E402

HOMES = {mode: REPO / ".airflow" / f"bench-{mode}" for mode in ("coarse", "per_model")}
DOC = REPO / "docs" / "airflow_deployment.md"
TARGET_RATIO = 1.2
PRODUCER = "dbt_producer_watcher"


def dump_tables(running: Running, path: Path) -> dict[str, list[str]]:
    """Every pipeline table on the deployment's Spark server (a client process with the tasks' settings), the
    deployment's landing directory in its rows' source_file written `<landing>` (each deployment has its own)."""
    landing = json.dumps(running.env["WINDOW_TVF_LANDING_DIR"])[1:-1]
    return {table: sorted(row.replace(landing, "<landing>") for row in rows)
            for table, rows in dump_in_a_process(running.env, path).items()}


def step_seconds(per_task: dict[str, list[float]]) -> dict[str, list[float]]:
    """Per dbt build step, its seconds per run: the coarse task's, or the per-model group's producer (the one dbt
    build the group's model tasks watch); tasks outside the groups as they are; the model tasks themselves left out
    (they wait beside the producer)."""
    steps: dict[str, list[float]] = {}
    for task_id, seconds in per_task.items():
        group, _, rest = task_id.partition(".")
        if not rest:
            steps[task_id] = seconds
        elif rest == PRODUCER:
            steps[group] = seconds
    return steps


def model_task_count(per_task: dict[str, list[float]]) -> int:
    # nor its `_done` task, nor the group's own step_done and model_tasks_done (model_tasks.hand_over_on_the_build)
    return sum(1 for task_id in per_task if "." in task_id and PRODUCER not in task_id
               and task_id.rsplit(".", 1)[1] not in (STEP_DONE, MODEL_TASKS_DONE))


def cell(values: list[float]) -> str:
    return f"{statistics.median(values):.0f} ({min(values):.0f}-{max(values):.0f})" if values else "-"


def report(results: dict[str, tuple], equal: list[str], differ: list[str], rows: int, command: str) -> str:
    coarse, per_model = (results[mode] for mode in ("coarse", "per_model"))
    seconds = {mode: [s for _, s, _ in result[0]] for mode, result in results.items()}
    ratio = statistics.mean(seconds["per_model"]) / statistics.mean(seconds["coarse"])
    warm = (statistics.mean(seconds["per_model"][1:]) / statistics.mean(seconds["coarse"][1:])
            if len(seconds["coarse"]) > 1 else ratio)
    met = "met" if ratio <= TARGET_RATIO else "missed"
    per_interval = "\n".join(
        f"| {start:%Y-%m-%d %H:%M} | {a:.0f} ({state_a}) | {b:.0f} ({state_b}) | {b / a:.2f} |"
        for (start, a, state_a), (_, b, state_b) in zip(coarse[0], per_model[0])
    )
    steps = {mode: step_seconds(result[1]) for mode, result in results.items()}
    order = [*steps["coarse"], *(s for s in steps["per_model"] if s not in steps["coarse"])]
    step_rows = "\n".join(f"| `{step}` | {cell(steps['coarse'].get(step, []))} | "
                          f"{cell(steps['per_model'].get(step, []))} |" for step in order)
    tables = (f"{len(equal)} of {len(equal) + len(differ)} pipeline tables equal ({rows} rows)"
              + (f"; **different: {', '.join(differ)}**" if differ else ""))
    return f"""Made by `{command}` on {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC (2 cores, 24 GiB). Two deployments of
`make airflow` one after the other (LocalExecutor, SQLite, tasks on a Spark Connect server), each a backfill of the
same {len(coarse[0])} hourly intervals over the same landing files (`--max-active-runs 1`); an interval's time is its
run's, start to end, as Airflow records it.

- **coarse**: a task per dbt build step ({len(coarse[1])} tasks a run); backfill {coarse[2]:.0f} s; load averages
  (1/5/15 min) before {coarse[3]}, after {coarse[4]}.
- **per_model**: astronomer-cosmos' watcher mode, a task per dbt node ({len(per_model[1])} tasks a run, of which
  {model_task_count(per_model[1])} model, seed and test tasks); backfill {per_model[2]:.0f} s; load before
  {per_model[3]}, after {per_model[4]}.

| | coarse (s per interval) | per_model (s per interval) | ratio |
|---|---|---|---|
| mean, all intervals | {statistics.mean(seconds['coarse']):.0f} | {statistics.mean(seconds['per_model']):.0f} | {ratio:.2f} |
| mean, without the first | {statistics.mean(seconds['coarse'][1:] or seconds['coarse']):.0f} | {statistics.mean(seconds['per_model'][1:] or seconds['per_model']):.0f} | {warm:.2f} |

Target: per_model at most {TARGET_RATIO}x coarse per interval: **{met}** ({ratio:.2f}x over all intervals).
Tables: {tables}.

| interval | coarse (s) | per_model (s) | ratio |
|---|---|---|---|
{per_interval}

Per dbt build step, median seconds over the intervals (fastest-slowest): the coarse task, or the per-model group's
`{PRODUCER}` (its one `dbt build`; the group's model tasks wait beside it); the other tasks as they are:

| step | coarse | per_model |
|---|---|---|
{step_rows}
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--intervals", type=int, default=4)
    parser.add_argument("--doc", type=Path, default=DOC)
    parser.add_argument("--modes", nargs="+", choices=list(HOMES), default=list(HOMES),
                        help="deployments to run (one alone: its intervals printed, no comparison, docs untouched)")
    args = parser.parse_args()
    first = datetime.now(timezone.utc).replace(minute=0, second=0, microsecond=0) - timedelta(hours=args.intervals)
    results, dumps = {}, {}
    for mode in args.modes:
        home = HOMES[mode]
        print(f"== {mode}: a new deployment in {home}, load {load()}", flush=True)
        config = LocalAirflow(home=home, hours=args.intervals, feed_hours=0, unpause_hourly=False,
                              run_reference=False, dbt_tasks=mode, first=first)
        *result, dumps[mode] = scheduler_phase(
            config, args.intervals, inspect=lambda running, mode=mode: dump_tables(running, home / "tables.json"))
        results[mode] = tuple(result)
        for start_, seconds, state in result[0]:
            print(f"{mode} [{start_:%H:%M}] {state} in {seconds:.0f} s", flush=True)
        if any(state != "success" for _, _, state in result[0]):
            print(f"error: some {mode} runs failed; see {home}/logs", file=sys.stderr)
            return 1
    if len(results) < len(HOMES):
        return 0
    equal = [t for t in dumps["coarse"] if dumps["coarse"][t] == dumps["per_model"].get(t)]
    differ = sorted((set(dumps["coarse"]) | set(dumps["per_model"])) - set(equal))
    rows = sum(len(rows) for rows in dumps["coarse"].values())
    command = "make bench-airflow-tasks" + (f" BENCH_TASKS_INTERVALS={args.intervals}" if args.intervals != 4 else "")
    text = report(results, equal, differ, rows, command)
    write_section(args.doc, "Per-model tasks against coarse tasks, measured", "<!-- airflow-dbt-tasks:begin -->",
                  "<!-- airflow-dbt-tasks:end -->", text)
    print(text)
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
