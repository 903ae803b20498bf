"""What the hourly DAG's tasks do, for one data interval [start, end) of arrival time."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from window_tvf_pipeline.config import ALLOWED_LATENESS, LANDING_DIR
from window_tvf_pipeline.dbt import dbt
from window_tvf_pipeline.landing import event_files, price_file, price_files, required_snapshot

# The event-side models (load, deduplicate and classify, every window) and the join that needs the prices.
EVENT_MODELS = "stg_order_events+"
PRICE_MODELS = "stg_item_prices"
JOIN_MODELS = "fct_order_events_priced"


def interval_vars(start: datetime, end: datetime) -> dict[str, Any]:
    """dbt vars for the interval: its bounds (half-open, like Flink windows) and the files that arrived in it."""
    variables = {
        "data_interval_start": start.isoformat(),
        "data_interval_end": end.isoformat(),
        "landing_event_files": [str(p) for p in event_files(LANDING_DIR, start, end)],
        "landing_price_files": [str(p) for p in price_files(LANDING_DIR, end)],
    }
    return variables | ({"allowed_lateness": ALLOWED_LATENESS} if ALLOWED_LATENESS else {})


def build_event_windows(start: datetime, end: datetime) -> None:
    """Loads the interval's event files and rebuilds the windows they touch; dbt's tests run after each model."""
    dbt(["build", "--select", EVENT_MODELS, "--exclude", JOIN_MODELS], interval_vars(start, end))


def price_snapshot_landed(end: datetime) -> bool:
    """True once the snapshot in force at the interval's end is in the landing folder."""
    return price_file(LANDING_DIR, required_snapshot(end)).exists()


def load_price_snapshots(start: datetime, end: datetime) -> None:
    dbt(["build", "--select", PRICE_MODELS], interval_vars(start, end))


def build_priced_orders(start: datetime, end: datetime) -> None:
    dbt(["build", "--select", JOIN_MODELS], interval_vars(start, end))
