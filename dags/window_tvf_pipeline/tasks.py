"""What the hourly DAG's tasks do, for one data interval [start, end) of arrival time."""

from __future__ import annotations

import json
import logging
from datetime import datetime
from pathlib import Path
from typing import Any, Callable

from window_tvf_pipeline.config import WINDOW_MODELS, Settings
from window_tvf_pipeline.dbt import dbt
from window_tvf_pipeline.landing import event_files, price_file, price_files, required_snapshot, snapshot_time
from window_tvf_pipeline.recovery import recover
from window_tvf_pipeline.spark import spark_session

# The landing lines parsed, with their rejections; the models built on them (deduplicate and classify, every window);
# the price snapshots; the join that needs the prices.
STAGED_EVENT_MODELS = "stg_order_events fct_rejected_order_events"
EVENT_MODELS = "stg_order_events+"
PRICE_MODELS = "stg_item_prices fct_rejected_item_prices"
JOIN_MODELS = "int_item_prices_in_force fct_order_events_priced"
log = logging.getLogger(__name__)


def interval_vars(start: datetime, end: datetime, settings: Settings) -> dict[str, Any]:
    """dbt vars for the interval: its bounds (half-open, like Flink windows), the event files that arrived in it, and
    the price snapshots its on-time events can need (from the one in force at start - allowed lateness)."""
    snapshots = price_files(settings.landing_dir, start - settings.lateness, end)
    return {
        "data_interval_start": start.isoformat(),
        "data_interval_end": end.isoformat(),
        "allowed_lateness": settings.allowed_lateness,
        "deduplication_ttl": settings.deduplication_ttl,
        "landing_event_files": [str(p) for p in event_files(settings.landing_dir, start, end)],
        "landing_price_files": [str(p) for p in snapshots],
        "price_snapshots_from": snapshot_time(snapshots[0]).isoformat() if snapshots else None,
    }


def recover_interrupted_writes(settings: Settings) -> None:
    """A retry first repairs what a killed attempt left (window_tvf_pipeline.recovery). Not on server targets: there
    the writes run in the server's driver, which outlives the task (and may still run a killed task's statement);
    a write is cut only when that driver dies, and make airflow's server repairs its warehouse at each start
    (scripts/connect_server.py)."""
    if settings.on_server:
        return
    repaired = recover(spark_session(settings), settings.schema, settings.written_tables)
    if repaired:
        log.warning("Repaired an interrupted write: %s", repaired)


def interval_env(start: datetime, end: datetime, settings: Settings | None = None) -> dict[str, str]:
    """The per-model DAGs' first step for a group of dbt tasks: repairs an interrupted write, then returns the
    interval's vars as window_tvf.scheduled_var reads them (WINDOW_TVF_VAR_<NAME>, JSON), for the tasks' env."""
    settings = settings or Settings.from_environment()
    recover_interrupted_writes(settings)
    return {f"WINDOW_TVF_VAR_{name.upper()}": json.dumps(value)
            for name, value in interval_vars(start, end, settings).items()}


def gate_event_rejections(start: datetime, end: datetime, settings: Settings | None = None) -> None:
    """The rejection gate on the interval's event lines, as a task of its own (per-model DAG)."""
    _gate(lambda: _quality().gate_event_rejections(start, end, settings or Settings.from_environment()))


def gate_price_rejections(start: datetime, end: datetime, settings: Settings | None = None) -> None:
    """The rejection gate on the snapshots the interval loaded, as a task of its own (per-model DAG)."""
    settings = settings or Settings.from_environment()
    snapshots = [snapshot_time(Path(path)) for path in interval_vars(start, end, settings)["landing_price_files"]]
    _gate(lambda: _quality().gate_price_rejections(snapshots, settings))


def event_window_selection(settings: Settings) -> tuple[list[str], list[str]]:
    """build_event_windows' second dbt build as --select and --exclude."""
    built = [*STAGED_EVENT_MODELS.split(), *JOIN_MODELS.split()]
    others = [models for mode, models in WINDOW_MODELS.items() if mode != settings.window_models]
    return [EVENT_MODELS], [*built, *others]


def build_event_windows(start: datetime, end: datetime, settings: Settings | None = None) -> None:
    """Loads the interval's event files, stops if the rejection gate fails (more than max_rejected_share of the
    lines rejected: nothing is windowed then), else rebuilds the windows they touch; dbt's tests run after each model.
    The window tables are those of the DAG's mode: the insert_overwrite models (which read the interval's vars), or
    their microbatch twins, given the batches of window time the interval's events can change."""
    settings = settings or Settings.from_environment()
    recover_interrupted_writes(settings)
    variables = interval_vars(start, end, settings)
    dbt(["build", "--select", *STAGED_EVENT_MODELS.split()], variables, settings)
    _gate(lambda: _quality().gate_event_rejections(start, end, settings))
    select, exclude = event_window_selection(settings)
    args = ["build", "--select", *select, "--exclude", *exclude]
    if settings.window_models == "microbatch":
        first, last = settings.microbatch_range(start, end)
        # dbt reads whole seconds in UTC (click's DateTime); rounding the start down only adds nothing: dbt starts
        # from the batch that holds it.
        args += ["--event-time-start", f"{first:%Y-%m-%dT%H:%M:%S}", "--event-time-end", f"{last:%Y-%m-%dT%H:%M:%S}"]
    dbt(args, variables, settings)


def price_snapshot_landed(end: datetime, settings: Settings | None = None) -> bool:
    """True once the snapshot in force at the interval's end is in the landing folder."""
    settings = settings or Settings.from_environment()
    return price_file(settings.landing_dir, required_snapshot(end)).exists()


def load_price_snapshots(start: datetime, end: datetime, settings: Settings | None = None) -> None:
    """Loads the snapshots the interval's events can need; the rejection gate then checks each of them (an empty
    snapshot, or one with more than max_rejected_share of its lines rejected, stops the join)."""
    settings = settings or Settings.from_environment()
    recover_interrupted_writes(settings)
    variables = interval_vars(start, end, settings)
    dbt(["build", "--select", *PRICE_MODELS.split()], variables, settings)
    snapshots = [snapshot_time(Path(path)) for path in variables["landing_price_files"]]
    _gate(lambda: _quality().gate_price_rejections(snapshots, settings))


def _quality() -> Any:
    """Great Expectations is imported when a check runs, not when Airflow parses the DAG file (it takes seconds)."""
    from window_tvf_pipeline import quality

    return quality


def _gate(check: Callable[[], object]) -> None:
    """A failed rejection gate fails the task without retries: the same files would fail it again. Fix or remove
    the file, then clear the task (docs/dirty_feeds.md)."""
    from window_tvf_pipeline.quality import RejectionGateFailed

    try:
        check()
    except RejectionGateFailed as failure:
        from airflow.sdk.exceptions import AirflowFailException

        raise AirflowFailException(str(failure)) from failure


def build_priced_orders(start: datetime, end: datetime, settings: Settings | None = None) -> None:
    settings = settings or Settings.from_environment()
    recover_interrupted_writes(settings)
    dbt(["build", "--select", *JOIN_MODELS.split()], interval_vars(start, end, settings), settings)


def check_order_windows(start: datetime, end: datetime, settings: Settings | None = None) -> list[str]:
    """The Great Expectations suites on what the run rewrote; returns the suites that passed."""
    return _quality().validate_order_windows(start, end, settings or Settings.from_environment())


def check_documented_examples(settings: Settings | None = None) -> list[str]:
    return _quality().validate_documented_examples(settings or Settings.from_environment())
