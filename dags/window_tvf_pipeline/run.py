"""The pipeline end to end on the embedded Spark, as Airflow runs it: generates the landing files, runs the
reference-examples DAG once, then the hourly DAG for consecutive data intervals (a backfill, each run through
`dag.test()`, so every task is a real Airflow task run in this one process and shares one SparkSession), and
prints a summary.

    python -m window_tvf_pipeline.run [--hours 6] [--large]
"""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import dataclass
from functools import cache
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from window_tvf_pipeline import config

AIRFLOW_HOME = Path(os.environ.get("AIRFLOW_HOME") or config.REPO / ".airflow")
# The order pipeline's tables and views (models/order_pipeline), in build order.
PIPELINE_TABLES = [
    "stg_order_events",
    "stg_item_prices",
    "int_order_events",
    "fct_item_sales_tumble_15m",
    "fct_item_sales_hop_1h_15m",
    "fct_item_sales_cumulate_1h_1d",
    "fct_user_sessions_10m",
    "fct_top_items_1h",
    "fct_order_events_priced",
    "fct_late_order_events",
    "fct_order_events_without_time",
]


def configure_airflow(home: Path = AIRFLOW_HOME) -> None:
    """Airflow reads its settings when first imported: set them before that."""
    home.mkdir(parents=True, exist_ok=True)
    os.environ["AIRFLOW_HOME"] = str(home)
    os.environ.setdefault("AIRFLOW__CORE__DAGS_FOLDER", str(config.REPO / "dags"))
    os.environ.setdefault("AIRFLOW__CORE__LOAD_EXAMPLES", "False")
    os.environ.setdefault("AIRFLOW__DATABASE__SQL_ALCHEMY_CONN", f"sqlite:///{home / 'airflow.db'}")


def prepare_airflow() -> None:
    """The metadata database and the pool that serialises Spark tasks (one slot: the embedded Derby metastore)."""
    from airflow.models.pool import Pool
    from airflow.utils.db import initdb

    initdb()
    if config.SPARK_POOL != "default_pool":
        Pool.create_or_update_pool(
            config.SPARK_POOL, slots=1, description="Tasks that start Spark", include_deferred=False
        )


@cache
def _dag_bag() -> Any:
    """The DAG folder, parsed once per process."""
    from airflow.dag_processing.dagbag import DagBag

    bag = DagBag(dag_folder=str(config.REPO / "dags"))
    if bag.import_errors:
        raise RuntimeError(f"DAG import errors: {bag.import_errors}")
    return bag


def load_dag(dag_id: str) -> Any:
    return _dag_bag().get_dag(dag_id)


@dataclass(frozen=True)
class RunOutcome:
    logical_date: datetime
    state: str
    failed_tasks: list[str]
    passed_checks: list[str]  # the Great Expectations suites that passed


def run_dag(dag: Any, logical_date: datetime) -> RunOutcome:
    run = dag.test(logical_date=logical_date)
    instances = run.get_task_instances()
    failed = [ti.task_id for ti in instances if ti.state not in ("success", "skipped")]
    checks = [name for ti in instances if ti.task_id.startswith("check_") for name in ti.xcom_pull() or []]
    return RunOutcome(logical_date, str(run.state), failed, checks)


def run_interval(dag: Any, interval_start: datetime) -> RunOutcome:
    """One hourly run for [interval_start, interval_start + 1 hour): a manual run's data interval is the last whole
    hour before its logical date."""
    return run_dag(dag, interval_start + timedelta(hours=1))


def summary(spark: Any, outcomes: list[RunOutcome], reference: RunOutcome) -> str:
    schema = config.dbt_schema()
    lines = [f"Intervals processed: {len(outcomes)} (hourly)"]
    lines += [f"  [{o.logical_date - timedelta(hours=1):%Y-%m-%d %H:%M}, {o.logical_date:%H:%M}) UTC: {o.state}" for o in outcomes]
    lines.append("Rows per model:")
    lines += [f"  {table:<32} {spark.table(f'{schema}.{table}').count():>8}" for table in PIPELINE_TABLES]
    corrected = spark.sql(
        f"""
        select count(*) from {schema}.int_order_events
        where arrival_status = 'on_time' and date_trunc('hour', event_time) < cast(concat(arrival_hour, ':00:00Z') as timestamp)
        """
    ).first()[0]
    late = spark.table(f"{schema}.fct_late_order_events").count()
    lines.append(
        f"Late events: {corrected} arrived after their hour and corrected earlier windows; {late} arrived later "
        f"than the allowed lateness and are in fct_late_order_events"
    )
    checks = len(reference.passed_checks) + sum(len(o.passed_checks) for o in outcomes)
    lines.append(f"Great Expectations suite validations passed: {checks}; every dbt test passed (a failure stops the run)")
    from window_tvf_pipeline.quality import data_docs_index

    lines.append(f"Data Docs: {data_docs_index()}")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--hours", type=int, default=6, help="hourly intervals to generate and process")
    parser.add_argument("--large", action="store_true", help="generate about 100 times more events")
    args = parser.parse_args()

    from window_tvf_pipeline.generate import LARGE, SMALL, write_landing

    lines = write_landing(config.LANDING_DIR, config.START, args.hours, LARGE if args.large else SMALL)
    print(f"Generated {lines} event lines for {args.hours} arrival hours in {config.LANDING_DIR}")

    configure_airflow()
    prepare_airflow()
    from window_tvf_pipeline.quality import spark_session

    reference = run_dag(load_dag("window_tvf_reference_examples"), config.START)
    if reference.failed_tasks:
        print(f"The reference-examples DAG failed in {reference.failed_tasks}: see the logs above.", file=sys.stderr)
        return 1
    hourly = load_dag("window_tvf_orders_hourly")
    outcomes = []
    for hour in range(args.hours):
        outcome = run_interval(hourly, config.START + timedelta(hours=hour))
        outcomes.append(outcome)
        if outcome.failed_tasks:
            print(f"The run for hour {hour} failed in {outcome.failed_tasks}: see the logs above.", file=sys.stderr)
            return 1
    print(summary(spark_session(), outcomes, reference))
    return 0


if __name__ == "__main__":
    sys.exit(main())
