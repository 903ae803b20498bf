"""Running the project's DAGs in this process, as Airflow runs them: `dag.test()` makes each run's tasks real Airflow
task runs (retries included) in one process, so they share one SparkSession."""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import cache
from pathlib import Path
from typing import Any

from window_tvf_pipeline.config import REPO, Settings


def configure_airflow(home: Path) -> None:
    """Airflow reads its settings when first imported: set them before that."""
    home.mkdir(parents=True, exist_ok=True)
    os.environ["AIRFLOW_HOME"] = str(home)
    os.environ.setdefault("AIRFLOW__CORE__DAGS_FOLDER", str(REPO / "dags"))
    os.environ.setdefault("AIRFLOW__CORE__LOAD_EXAMPLES", "False")
    # Parsing a DAG file takes a few seconds; Airflow's 30 s limit is too tight on a busy 2-core machine.
    os.environ.setdefault("AIRFLOW__CORE__DAGBAG_IMPORT_TIMEOUT", "300")
    os.environ.setdefault("AIRFLOW__DATABASE__SQL_ALCHEMY_CONN", f"sqlite:///{home / 'airflow.db'}")


def prepare_airflow(settings: Settings) -> None:
    """The metadata database and the pool that serialises Spark tasks (one slot: the embedded Derby metastore)."""
    from airflow.models.pool import Pool
    from airflow.utils.db import initdb

    initdb()
    if settings.spark_pool != "default_pool":
        Pool.create_or_update_pool(
            settings.spark_pool, slots=1, description="Tasks that start Spark", include_deferred=False
        )


@cache
def _dag_bag() -> Any:
    """The DAG folder, parsed once per process."""
    from airflow.dag_processing.dagbag import DagBag

    bag = DagBag(dag_folder=str(REPO / "dags"))
    if bag.import_errors:
        raise RuntimeError(f"DAG import errors: {bag.import_errors}")
    return bag


def load_dag(dag_id: str) -> Any:
    return _dag_bag().get_dag(dag_id)


@dataclass(frozen=True)
class TaskOutcome:
    task_id: str
    state: str
    seconds: float  # the last attempt's run time (0 for a task that never started)
    attempts: int


@dataclass(frozen=True)
class RunOutcome:
    logical_date: datetime
    state: str
    tasks: list[TaskOutcome]  # in the order they started
    passed_checks: list[str]  # the Great Expectations suites that passed

    @property
    def failed_tasks(self) -> list[str]:
        return [t.task_id for t in self.tasks if t.state not in ("success", "skipped")]


def run_dag(dag: Any, logical_date: datetime, only: Iterable[str] | None = None) -> RunOutcome:
    """One run of `dag`; with `only`, the other tasks are marked successful without running (dag.test's
    mark_success_pattern), as when a person clears just these tasks of a run that finished."""
    others = None if only is None else "|".join(re.escape(t) for t in sorted(set(dag.task_ids) - set(only)))
    run = dag.test(logical_date=logical_date, mark_success_pattern=others or None)
    instances = sorted(run.get_task_instances(), key=lambda ti: (ti.start_date is None, ti.start_date, ti.task_id))
    tasks = [
        TaskOutcome(
            ti.task_id,
            str(ti.state),
            (ti.end_date - ti.start_date).total_seconds() if ti.start_date and ti.end_date else 0.0,
            ti.try_number or 0,
        )
        for ti in instances
    ]
    checks = [name for ti in instances if ti.task_id.startswith("check_") for name in ti.xcom_pull() or []]
    return RunOutcome(logical_date, str(run.state), tasks, checks)


def run_interval(dag: Any, interval_start: datetime, only: Iterable[str] | None = None) -> RunOutcome:
    """One hourly run for [interval_start, interval_start + 1 hour): a manual run's data interval is the last whole
    hour before its logical date. `only`: the tasks that run (see run_dag)."""
    return run_dag(dag, interval_start + timedelta(hours=1), only)
