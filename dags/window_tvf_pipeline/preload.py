"""The libraries the pipeline's tasks import, imported once by a process that forks the task processes.

Airflow's scheduler with LocalExecutor forks its worker processes when it starts, and each worker forks a process per
task (a bare os.fork on Linux), so whatever the scheduler imported before that, every task starts with. Imported per
task, these libraries cost about 10 s of CPU (Great Expectations about 6.4 s, dbt 2.7 s, the Spark Connect client
about 1 s, on this project's 2-core machine) on every task of every interval, twice per interval on its critical path.
Importing only: no Spark session, gRPC channel or dbt invocation exists before the fork (a fork copies a process's
memory, not its threads; the BLAS thread pool numpy starts re-creates itself after a fork). scripts/airflow_local.py
makes the scheduler call `preload()` (AIRFLOW_HOME/config/airflow_local_settings.py).

With one task per dbt model (astronomer-cosmos, model_tasks.py) an hourly interval runs 10 task processes on workers
instead of 5 (its model tasks start and end in the triggerer: cosmos_watcher.py), and each parses the DAG file,
four Cosmos task groups from dbt's manifest: 1.5 s of CPU in a process forked from the libraries above, 0.95 s
with Cosmos' modules imported and Airflow's plugins loaded before the fork (the first read of the manifest through
Airflow's ObjectStoragePath loads every plugin, Cosmos' own among them, for hook lineage). So both are done here too."""

from __future__ import annotations

import importlib
import logging
import time

# Libraries only: the pipeline's own modules (window_tvf_pipeline.*) are imported by each task, so a change to them
# reaches the next task without a scheduler restart. A library upgrade needs one (as it needs a new image anyway).
MODULES = (
    "dbt.cli.main",
    "dbt.adapters.spark.impl",
    "pyspark.sql.connect.session",
    "great_expectations",
    "great_expectations.expectations",
    "great_expectations.core.run_identifier",
    "cosmos.airflow.task_group",
    "cosmos.operators.watcher",
)
log = logging.getLogger(__name__)


def preload(modules: tuple[str, ...] = MODULES) -> float:
    """Imports `modules`; returns the seconds it took."""
    began = time.monotonic()
    for name in modules:
        importlib.import_module(name)
    _load_task_plugins()
    _keep_disabled_loggers_silent()
    seconds = time.monotonic() - began
    log.info("Preloaded %s in %.1f s", ", ".join(modules), seconds)
    return seconds


def _load_task_plugins() -> None:
    """The Task SDK's plugins (its own cache, apart from the scheduler's plugins_manager), as a task's first
    ObjectStoragePath read loads them for hook lineage: the cached list only, no lineage collector is made here."""
    from airflow.sdk import plugins_manager

    plugins_manager.get_hook_lineage_readers_plugins()


def _keep_disabled_loggers_silent() -> None:
    """Airflow configures its logging after it imports airflow_local_settings, and its dictConfig re-enables every
    logger that exists by then (disable_existing_loggers=False). A library logger that is off by default would start
    writing: the Spark Connect client's (off without SPARK_CONNECT_LOG_LEVEL) logs, with a handler of its own on
    stderr, every gRPC error it receives, such as the SCHEMA_NOT_FOUND dbt-spark provokes and handles on each run,
    and Airflow shows stderr at ERROR. Such loggers keep their silence through a level above CRITICAL."""
    for logger in logging.Logger.manager.loggerDict.values():
        if isinstance(logger, logging.Logger) and logger.disabled:
            logger.setLevel(logging.CRITICAL + 1)
