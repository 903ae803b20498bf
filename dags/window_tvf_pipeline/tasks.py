"""What the hourly DAG's tasks do, for one data interval [start, end) of arrival time."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from window_tvf_pipeline.config import Settings
from window_tvf_pipeline.dbt import dbt
from window_tvf_pipeline.landing import event_files, price_file, price_files, required_snapshot, snapshot_time

# The event-side models (load, deduplicate and classify, every window) and the join that needs the prices.
EVENT_MODELS = "stg_order_events+"
PRICE_MODELS = "stg_item_prices"
JOIN_MODELS = "int_item_prices_in_force fct_order_events_priced"


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


def build_event_windows(start: datetime, end: datetime, settings: Settings | None = None) -> None:
    """Loads the interval's event files and rebuilds the windows they touch; dbt's tests run after each model."""
    settings = settings or Settings.from_environment()
    dbt(["build", "--select", EVENT_MODELS, "--exclude", *JOIN_MODELS.split()], interval_vars(start, end, settings), settings)


def price_snapshot_landed(end: datetime, settings: Settings | None = None) -> bool:
    """True once the snapshot in force at the interval's end is in the landing folder."""
    settings = settings or Settings.from_environment()
    return price_file(settings.landing_dir, required_snapshot(end)).exists()


def load_price_snapshots(start: datetime, end: datetime, settings: Settings | None = None) -> None:
    settings = settings or Settings.from_environment()
    dbt(["build", "--select", PRICE_MODELS], interval_vars(start, end, settings), settings)


def build_priced_orders(start: datetime, end: datetime, settings: Settings | None = None) -> None:
    settings = settings or Settings.from_environment()
    dbt(["build", "--select", *JOIN_MODELS.split()], interval_vars(start, end, settings), settings)
