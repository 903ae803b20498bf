"""Where things are and how the pipeline runs, read from the environment (Airflow deployments set these; the
defaults suit a clone of this repository)."""

from __future__ import annotations

import os
from datetime import timedelta
from pathlib import Path

from window_tvf_pipeline.landing import parse_utc

REPO = Path(__file__).resolve().parents[2]


def _path(name: str, default: Path) -> Path:
    return Path(os.environ.get(name) or default).resolve()


DBT_PROJECT_DIR = _path("WINDOW_TVF_DBT_PROJECT_DIR", REPO)
LANDING_DIR = _path("WINDOW_TVF_LANDING_DIR", REPO / "landing")
# Great Expectations' file context: suites, validation results and the Data Docs site (gx/uncommitted/data_docs).
GX_DIR = _path("WINDOW_TVF_GX_DIR", REPO / ".airflow" / "great_expectations")
# The first data interval of the hourly DAG (and of the generated sample data).
START = parse_utc(os.environ.get("WINDOW_TVF_PIPELINE_START", "2026-01-01T00:00:00Z"))
# How long the as-of join waits for the price snapshot it needs before the run fails.
SNAPSHOT_WAIT_SECONDS = float(os.environ.get("WINDOW_TVF_SNAPSHOT_WAIT_SECONDS", 2 * 3600))
# Overrides dbt_project.yml's var allowed_lateness (e.g. "30 minutes") when set.
ALLOWED_LATENESS = os.environ.get("WINDOW_TVF_ALLOWED_LATENESS")
# Which profiles.yml target the DAGs run dbt against: the Airflow Variable `window_tvf_target` in its environment
# form (read when the DAG file is parsed, because the pool and concurrency depend on it), else the project's own
# WINDOW_TVF_TARGET, else the embedded Spark.
TARGET = os.environ.get("AIRFLOW_VAR_WINDOW_TVF_TARGET") or os.environ.get("WINDOW_TVF_TARGET") or "embedded"
# Targets whose metastore belongs to a server and is shared by every client (docs/spark_clusters.md). The others
# (embedded, cluster) keep an embedded Derby metastore in dbt's own driver, which admits one driver at a time.
SERVER_TARGETS = {"connect", "thrift"}
# With a driver-embedded target every task that starts Spark takes the single slot of this pool (created with one
# slot by `python -m window_tvf_pipeline.run`, or `airflow pools set window_tvf_spark 1 ...`); with a server
# target tasks use Airflow's default pool and may run side by side.
SPARK_POOL = "default_pool" if TARGET in SERVER_TARGETS else "window_tvf_spark"
TASKS_AT_ONCE = 4 if TARGET in SERVER_TARGETS else 1


def dbt_schema() -> str:
    """The schema dbt writes to: profiles.yml reads the same variable with the same default."""
    return os.environ.get("WINDOW_TVF_SCHEMA", "window_tvf")


# What every DAG of the project shares. One run at a time (the hourly DAG's interval N+1 builds on interval N's
# tables); tasks one at a time on a driver-embedded target, side by side on a server target. Every task is retried
# twice with exponential backoff (30 s, then 60 s, at most 10 min) and runs in the Spark pool.
DAG_SETTINGS = {
    "start_date": START,
    "max_active_runs": 1,
    "max_active_tasks": TASKS_AT_ONCE,
    "tags": ["window_tvf"],
    "default_args": {
        "retries": 2,
        "retry_delay": timedelta(seconds=30),
        "retry_exponential_backoff": 2.0,
        "max_retry_delay": timedelta(minutes=10),
        "pool": SPARK_POOL,
    },
}
