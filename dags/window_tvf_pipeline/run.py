"""The pipeline end to end on the embedded Spark, as Airflow runs it: generates the landing files, runs the
reference-examples DAG once, then the hourly DAG for consecutive data intervals (a backfill, each run through
`dag.test()`, so every task is a real Airflow task run in this one process and shares one SparkSession), and
prints a summary.

    python -m window_tvf_pipeline.run [--hours 6] [--large]

The console shows one progress bar over the intervals and one line per finished interval (each task's duration
and state); Airflow's, dbt's and Spark's logs go to a file whose path it prints. On a failure it prints the
failing task's last log lines."""

from __future__ import annotations

import argparse
import os
import sys
import time
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, TextIO

from window_tvf_pipeline.config import REPO, VIEWS, Settings
from window_tvf_pipeline.dag_runs import RunOutcome

TAIL_LINES = 40


class LogFile:
    """Sends everything this process and its children write to stdout and stderr (Airflow, dbt, Spark's JVM, GX's
    progress bars) to a file, at the file-descriptor level, and keeps the terminal for the console."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        sys.stdout.flush()
        sys.stderr.flush()
        self.terminal: TextIO = os.fdopen(os.dup(1), "w", buffering=1)
        log = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        os.dup2(log, 1)
        os.dup2(log, 2)
        os.close(log)

    def tail(self, lines: int, since: int = 0, containing: str | None = None) -> list[str]:
        """The last `lines` lines written after byte `since`; only the lines from the last one that mentions
        `containing` on, when given (where the failing task's log starts)."""
        sys.stdout.flush()
        sys.stderr.flush()
        with self.path.open("rb") as log:
            log.seek(since)
            text = log.read().decode("utf-8", "replace").splitlines()
        if containing:
            starts = [i for i, line in enumerate(text) if containing in line]
            text = text[starts[-1] if starts else 0 :]
        return text[-lines:]

    def write_traceback(self) -> None:
        """The exception being handled, into the log (stderr is the log)."""
        import traceback

        traceback.print_exc()

    def size(self) -> int:
        sys.stdout.flush()
        sys.stderr.flush()
        return self.path.stat().st_size


def interval_line(outcome: RunOutcome, start: datetime, seconds: float) -> str:
    tasks = "  ".join(
        f"{t.task_id} {t.seconds:.0f}s"
        + ("" if t.state == "success" else f" [bold red]{t.state}[/]")
        + (f" ({t.attempts} tries)" if t.attempts > 1 else "")
        for t in outcome.tasks
    )
    state = "[green]success[/]" if not outcome.failed_tasks else f"[bold red]{outcome.state}[/]"
    return f"[{start:%Y-%m-%d %H:%M}, {start + timedelta(hours=1):%H:%M}) {state} in {seconds:.0f}s: {tasks}"


def summary(spark: Any, outcomes: list[RunOutcome], reference: RunOutcome, settings: Settings) -> list[str]:
    from window_tvf_pipeline.quality import data_docs_index

    schema = settings.schema
    lines = [f"Intervals processed: {len(outcomes)} (hourly)", "Rows per model:"]
    width = max(len(table) for table in settings.pipeline_tables)
    lines += [f"  {table:<{width}} {spark.table(f'{schema}.{table}').count():>8}" for table in settings.pipeline_tables]
    corrected = spark.sql(
        f"select count(*) from {schema}.int_order_events "
        "where arrival_status = 'on_time' and date_trunc('hour', event_time) < arrival_hour"
    ).first()[0]
    late = spark.table(f"{schema}.fct_late_order_events").count()
    lines.append(
        f"Late events: {corrected} arrived after their hour and corrected earlier windows; {late} arrived later "
        f"than the allowed lateness ({settings.allowed_lateness}) and are in fct_late_order_events"
    )
    if settings.window_models != "microbatch":  # the microbatch twins carry no is_final
        final, windows, complete_to = spark.sql(
            f"select count_if(is_final), count(*), max(case when is_final then window_end end) "
            f"from {schema}.fct_item_sales_tumble_15m"
        ).first()
        lines.append(
            f"Final windows: {final} of {windows} 15-minute item windows are final, complete up to {complete_to} "
            f"(the last interval's end less the allowed lateness; fct_final_item_sales_15m, for dashboards), "
            f"{windows - final} provisional (is_final = false) until late events can no longer reach them"
        )
    lines += [
        rejections(spark, f"{schema}.stg_order_events", "fct_rejected_order_events", "landing lines"),
        rejections(spark, f"{schema}.stg_item_prices", "fct_rejected_item_prices", "price snapshot lines"),
    ]
    checks = len(reference.passed_checks) + sum(len(o.passed_checks) for o in outcomes)
    lines.append(f"Great Expectations suite validations passed: {checks}; every dbt test passed (a failure stops the run)")
    lines.append(f"Data Docs: {data_docs_index(settings)}")
    return lines


def rejections(spark: Any, staged: str, listed_in: str, what: str) -> str:
    """'Rejected landing lines: 14 of 2912 (0.5%), in fct_rejected_order_events: truncated 3, bad_type:quantity 5'."""
    counts = spark.sql(
        f"select count(line_number), count(case when reason is not null then line_number end) from {staged}"
    ).first()
    by_reason = spark.sql(
        f"select reason, count(*) as lines from {staged} where reason is not null group by reason order by lines desc, reason"
    ).collect()
    share = f" ({counts[1] / counts[0]:.1%})" if counts[0] else ""
    reasons = ", ".join(f"{row.reason} {row.lines}" for row in by_reason) or "none"
    return f"Rejected {what}: {counts[1]} of {counts[0]}{share}, in {listed_in}: {reasons}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--hours", type=int, default=6, help="hourly intervals to generate and process")
    parser.add_argument("--large", action="store_true", help="generate about 100 times more events")
    parser.add_argument("--log", type=Path, default=REPO / "logs" / "pipeline.log", help="where the full logs go")
    args = parser.parse_args()

    from rich.console import Console

    log = LogFile(args.log.resolve())
    console = Console(file=log.terminal, highlight=False, soft_wrap=True)
    console.print(f"Full logs (Airflow, dbt, Spark): {log.path}")
    try:
        return _backfill(args, console, log)
    except Exception as error:  # noqa: BLE001 - whatever stopped the backfill, say it where the person looks
        log.write_traceback()
        console.print(f"[bold red]The pipeline stopped: {type(error).__name__}: {str(error).splitlines()[0][:300]}[/]")
        for line in log.tail(TAIL_LINES):
            console.print(line, markup=False)
        console.print(f"The rest is in {log.path}")
        return 1
    finally:
        from window_tvf_pipeline.spark import stop_spark

        stop_spark()


def _backfill(args: argparse.Namespace, console: Any, log: LogFile) -> int:
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from window_tvf_pipeline import dag_runs
    from window_tvf_pipeline.generate import LARGE, SMALL, write_landing
    from window_tvf_pipeline.spark import spark_session

    settings = Settings.from_environment()
    lines = write_landing(settings.landing_dir, settings.start, args.hours, LARGE if args.large else SMALL)
    console.print(f"Generated {lines} event lines for {args.hours} arrival hours in {settings.landing_dir}")
    dag_runs.configure_airflow(Path(os.environ.get("AIRFLOW_HOME") or REPO / ".airflow"))
    dag_runs.prepare_airflow(settings)
    _fresh_tables(settings)

    columns = [TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn()]
    with Progress(*columns, console=console) as progress:
        bar = progress.add_task("Reference examples DAG", total=1)
        began, offset = time.monotonic(), log.size()
        reference = dag_runs.run_dag(dag_runs.load_dag("window_tvf_reference_examples"), settings.start)
        progress.advance(bar)
        console.print(f"Reference examples: {reference.state} in {time.monotonic() - began:.0f}s")
        if reference.failed_tasks:
            return _failed(console, log, reference, offset)
        hourly = dag_runs.load_dag("window_tvf_orders_hourly")
        bar = progress.add_task("Hourly intervals", total=args.hours)
        outcomes = []
        for hour in range(args.hours):
            start = settings.start + timedelta(hours=hour)
            began, offset = time.monotonic(), log.size()
            outcome = dag_runs.run_interval(hourly, start)
            outcomes.append(outcome)
            progress.advance(bar)
            console.print(interval_line(outcome, start, time.monotonic() - began))
            if outcome.failed_tasks:
                return _failed(console, log, outcome, offset)
    for line in summary(spark_session(settings), outcomes, reference, settings):
        console.print(line)
    console.print(f"Full logs: {log.path}")
    return 0


def _fresh_tables(settings: Settings) -> None:
    """The backfill starts from empty pipeline tables: the landing files were just generated anew."""
    from window_tvf_pipeline.spark import spark_session

    spark = spark_session(settings)
    for table in settings.pipeline_tables:
        kind = "view" if table in VIEWS else "table"
        spark.sql(f"drop {kind} if exists {settings.schema}.{table}")


def _failed(console: Any, log: LogFile, outcome: RunOutcome, offset: int) -> int:
    task = outcome.failed_tasks[0]
    console.print(f"[bold red]The run for {outcome.logical_date:%Y-%m-%d %H:%M} failed in {outcome.failed_tasks}.[/]")
    console.print(f"Last log lines of {task}:")
    for line in log.tail(TAIL_LINES, since=offset, containing=task):
        console.print(line, markup=False)
    console.print(f"The rest is in {log.path}")
    return 1


if __name__ == "__main__":
    sys.exit(main())
