"""How the pipeline runs, as one typed object built from the environment when it is needed (Airflow deployments set
the variables; the defaults suit a clone of this repository). Tasks build it when they run, the DAG files when
they are parsed, tests pass their own."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from functools import cached_property
from pathlib import Path
from typing import Any

from window_tvf_pipeline.landing import parse_utc
from window_tvf_pipeline.project import REPO, project_var
# Targets whose metastore belongs to a server and is shared by every client (docs/spark_clusters.md). The others
# (embedded, cluster) keep an embedded Derby metastore in dbt's own driver, which admits one driver at a time.
SERVER_TARGETS = {"connect", "thrift"}
# The pool that serialises Spark tasks on a driver-embedded target (one slot; `python -m window_tvf_pipeline.run`
# creates it, or `airflow pools set window_tvf_spark 1 ...`).
SPARK_POOL = "window_tvf_spark"
# The order pipeline's tables and views (models/order_pipeline), in build order.
PIPELINE_TABLES = [
    "stg_order_events",
    "stg_item_prices",
    "int_order_events",
    "fct_item_sales_tumble_15m",
    "fct_final_item_sales_15m",
    "fct_item_sales_hop_1h_15m",
    "fct_item_sales_cumulate_1h_1d",
    "fct_item_sales_daily_new_york",
    "fct_item_sales_month_to_date_new_york",
    "int_user_hours",
    "int_user_days_new_york",
    "fct_active_users_1d_new_york",
    "fct_active_users_7d_new_york",
    "fct_active_users_30d_new_york",
    "fct_user_sessions_10m",
    "fct_top_items_1h",
    "fct_order_events_priced",
    "fct_late_order_events",
    "fct_early_order_events",
    "fct_order_events_without_time",
    "fct_rejected_order_events",
    "fct_rejected_item_prices",
]
VIEWS = {
    "fct_final_item_sales_15m",
    "fct_late_order_events",
    "fct_early_order_events",
    "fct_order_events_without_time",
    "fct_rejected_order_events",
    "fct_rejected_item_prices",
}
# The tables a run writes (the views are rebuilt whole by every run).
WRITTEN_TABLES = [t for t in PIPELINE_TABLES if t not in VIEWS]
# The window tables (models/order_pipeline/windows, insert_overwrite by window date) and their dbt microbatch twins
# (models/order_pipeline/windows_microbatch, named with this suffix): which ones the hourly DAG builds is its mode.
WINDOW_TABLES = [t for t in PIPELINE_TABLES if t.startswith(("fct_item_sales_", "fct_user_sessions_", "fct_top_items_"))]
MICROBATCH_SUFFIX = "_microbatch"
WINDOW_MODELS = {"incremental": "path:models/order_pipeline/windows", "microbatch": "tag:microbatch"}
DBT_TASKS = ["coarse", "per_model"]
_UNITS = {"second": 1, "minute": 60, "hour": 3600, "day": 86400}


def duration(text: str) -> timedelta:
    """A dbt var duration such as '2 hours' or '30 minutes' (the forms the models' `interval '...'` accepts)."""
    match = re.fullmatch(r"\s*(\d+)\s*(second|minute|hour|day)s?\s*", text.lower())
    if not match:
        raise ValueError(f"expected a duration such as '2 hours' or '30 minutes', got {text!r}")
    return timedelta(seconds=int(match.group(1)) * _UNITS[match.group(2)])


def _choice(environ: Mapping[str, str], name: str, choices: list[str], default: str) -> str:
    value = environ.get(name) or default
    if value not in choices:
        raise ValueError(f"{name}={value!r}: expected one of {', '.join(choices)}")
    return value


def _share(environ: Mapping[str, str], name: str, default: float) -> float:
    value = environ.get(name) or str(default)
    try:
        share = float(value)
    except ValueError:
        share = -1.0
    if not 0.0 <= share <= 1.0:
        raise ValueError(f"{name}={value!r}: expected a share from 0 to 1, such as 0.1 for 10%")
    return share


def _whole_number(environ: Mapping[str, str], name: str, default: int, least: int = 1) -> int:
    value = environ.get(name) or str(default)
    if not value.isdigit() or int(value) < least:
        raise ValueError(f"{name}={value!r}: expected a whole number of at least {least}")
    return int(value)


@dataclass(frozen=True)
class Settings:
    dbt_project_dir: Path
    landing_dir: Path
    gx_dir: Path  # Great Expectations' file context: suites, results and the Data Docs site (gx/uncommitted/...)
    gx_results_kept: int  # validation results kept per suite (the newest); older ones leave the store and Data Docs
    # A suite's rows up to this many are collected once and validated in pandas; more are validated on Spark, where
    # GX computes each metric as a Spark job (over Spark Connect a round trip each). 0: always on Spark.
    gx_local_rows: int
    start: datetime  # the first data interval of the hourly DAG (and of the generated sample data)
    snapshot_wait_seconds: float  # how long the as-of join waits for the price snapshot it needs
    allowed_lateness: str  # dbt var: events more than this before their arrival hour are late, e.g. "2 hours"
    deduplication_ttl: str  # dbt var: how long an event_id is remembered after it was kept, e.g. "1 day"
    target: str  # the profiles.yml target dbt runs against
    schema: str  # the schema dbt writes to (profiles.yml reads WINDOW_TVF_SCHEMA with the same default)
    # The rejection gate: the largest share of an interval's landing lines (or of a price snapshot's lines) that may
    # be rejected before the run stops (docs/dirty_feeds.md). 10%: a healthy producer sends none, a stray record is
    # a fraction of a percent of an hour, a producer that changed its format sends (nearly) all of its lines bad.
    max_rejected_share: float
    # 'incremental': the window tables are insert_overwrite models rebuilt from the interval's dates; 'microbatch':
    # their dbt microbatch twins, built for the batches of the window times the interval's events can change.
    window_models: str = "incremental"
    # The DAGs' end_date: no run is scheduled for an interval that starts after it (None: they run on). A benchmark
    # that backfills given hours sets it, so that an hour ending meanwhile is not scheduled beside its backfill.
    end: datetime | None = None
    # 'coarse': each dbt build step is one task; 'per_model': one task per dbt node (astronomer-cosmos' watcher mode,
    # dags/window_tvf_pipeline/model_tasks.py). The Airflow Variable `window_tvf_dbt_tasks`, read when a DAG is parsed.
    dbt_tasks: str = "coarse"

    @classmethod
    def from_environment(cls, environ: Mapping[str, str] = os.environ) -> Settings:
        def path(name: str, default: Path) -> Path:
            return Path(environ.get(name) or default).resolve()

        return cls(
            dbt_project_dir=path("WINDOW_TVF_DBT_PROJECT_DIR", REPO),
            landing_dir=path("WINDOW_TVF_LANDING_DIR", REPO / "landing"),
            gx_dir=path("WINDOW_TVF_GX_DIR", REPO / ".airflow" / "great_expectations"),
            # Two days of hourly runs: the Data Docs and the results store stay the same size after a year.
            gx_results_kept=_whole_number(environ, "WINDOW_TVF_GX_RESULTS_KEPT", 48),
            gx_local_rows=_whole_number(environ, "WINDOW_TVF_GX_LOCAL_ROWS", 200_000, least=0),
            start=parse_utc(environ.get("WINDOW_TVF_PIPELINE_START", "2026-11-01T06:00:00Z")),
            snapshot_wait_seconds=float(environ.get("WINDOW_TVF_SNAPSHOT_WAIT_SECONDS", 2 * 3600)),
            allowed_lateness=environ.get("WINDOW_TVF_ALLOWED_LATENESS") or project_var("allowed_lateness"),
            deduplication_ttl=environ.get("WINDOW_TVF_DEDUPLICATION_TTL") or project_var("deduplication_ttl"),
            # The Airflow Variable `window_tvf_target` in its environment form (read when a DAG file is parsed,
            # because the pool and concurrency depend on it), else the project's own WINDOW_TVF_TARGET.
            target=environ.get("AIRFLOW_VAR_WINDOW_TVF_TARGET") or environ.get("WINDOW_TVF_TARGET") or "embedded",
            schema=environ.get("WINDOW_TVF_SCHEMA", "window_tvf"),
            max_rejected_share=_share(environ, "WINDOW_TVF_MAX_REJECTED_SHARE", 0.1),
            window_models=_choice(environ, "WINDOW_TVF_WINDOW_MODELS", list(WINDOW_MODELS), "incremental"),
            dbt_tasks=_choice(environ, "AIRFLOW_VAR_WINDOW_TVF_DBT_TASKS", DBT_TASKS, "coarse"),
            end=parse_utc(environ["WINDOW_TVF_PIPELINE_END"]) if environ.get("WINDOW_TVF_PIPELINE_END") else None,
        )

    def window_table(self, table: str) -> str:
        """The table the mode builds for one of WINDOW_TABLES (others as they are)."""
        suffix = MICROBATCH_SUFFIX if self.window_models == "microbatch" and table in WINDOW_TABLES else ""
        return table + suffix

    @property
    def pipeline_tables(self) -> list[str]:
        return [self.window_table(table) for table in PIPELINE_TABLES]

    @property
    def written_tables(self) -> list[str]:
        return [self.window_table(table) for table in WRITTEN_TABLES]

    def microbatch_range(self, start: datetime, end: datetime) -> tuple[datetime, datetime]:
        """The event-time range (dbt's --event-time-start/--event-time-end) of the batches an interval's on-time
        events can change: every window holding an event has a window_time at or after it, less New York's offset
        spread (an hour: its local days' and local-clock windows') and 1 ms; up to the end of the day batch that holds
        the interval's end (dbt builds whole batches: that day's windows as far as the events so far, as the
        insert_overwrite tables hold them)."""
        first = (start - self.lateness - timedelta(hours=1, milliseconds=1)).astimezone(timezone.utc)
        last = end.astimezone(timezone.utc) - timedelta(microseconds=1)
        return first, datetime.combine(last.date() + timedelta(days=1), datetime.min.time(), tzinfo=timezone.utc)

    @cached_property
    def lateness(self) -> timedelta:
        return duration(self.allowed_lateness)

    @property
    def on_server(self) -> bool:
        return self.target in SERVER_TARGETS

    @property
    def spark_pool(self) -> str:
        """Driver-embedded targets run every Spark task in the one-slot pool; server targets in the default pool."""
        return "default_pool" if self.on_server else SPARK_POOL

    def dag_settings(self) -> dict[str, Any]:
        """What every DAG of the project shares. One run at a time (the hourly DAG's interval N+1 builds on interval
        N's tables); tasks one at a time on a driver-embedded target, side by side on a server target. Every task
        is retried three times with exponential backoff (30 s, 60 s, 120 s, at most 10 min) and runs in the Spark
        pool: make airflow's Spark Connect server, when it dies, is back within 15-100 s (scripts/spark_supervisor.py),
        so a task that failed with it gets about 3.5 minutes of retries, enough for a restart on a loaded machine."""
        return {
            "start_date": self.start,
            **({"end_date": self.end} if self.end else {}),
            "max_active_runs": 1,
            "max_active_tasks": 4 if self.on_server else 1,
            "tags": ["window_tvf"],
            "default_args": {
                "retries": 3,
                "retry_delay": timedelta(seconds=30),
                "retry_exponential_backoff": 2.0,
                "max_retry_delay": timedelta(minutes=10),
                "pool": self.spark_pool,
            },
        }
