"""The scheduled order pipeline: every hour, the events that arrived in that hour are loaded and every window they
touch is rebuilt (tumble, hop, cumulate, session, Top-N), late events are routed, the priced orders are joined
against the price snapshot in force, and Great Expectations checks the results.

Data interval: [data_interval_start, data_interval_end) of arrival time, one hour (CronDataIntervalTimetable, so a
run for 02:00-03:00 starts after 03:00 and catchup/backfill walk the hours in order).

The Airflow Variable `window_tvf_dbt_tasks` = per_model shows each dbt model as its own task (model_tasks.py); the
gates, the snapshot wait and the checks stay their own tasks in the same order.
"""

from __future__ import annotations

from airflow.sdk import DAG, CronDataIntervalTimetable, task

from window_tvf_pipeline import tasks
from window_tvf_pipeline.config import Settings
from window_tvf_pipeline.model_tasks import interval_var

settings = Settings.from_environment()

with DAG(
    dag_id="window_tvf_orders_hourly",
    description="Hourly windows over order events, with late data, as-of prices and data-quality gates",
    schedule=CronDataIntervalTimetable("0 * * * *", timezone="UTC"),
    catchup=True,
    # the per-model tasks' environment template (model_tasks.interval_env_template)
    user_defined_macros={"interval_var": interval_var},
    **settings.dag_settings(),
) as dag:

    # The processing-time temporal join's rule in batch terms: the fact-side join never runs before the dimension
    # snapshot it needs has landed and loaded.
    @task.sensor(
        poke_interval=min(60.0, settings.snapshot_wait_seconds),
        timeout=settings.snapshot_wait_seconds,
        mode="reschedule",
        retries=0,
    )
    def wait_for_price_snapshot(data_interval_end=None) -> bool:
        return tasks.price_snapshot_landed(data_interval_end)

    @task
    def check_order_windows(data_interval_start=None, data_interval_end=None) -> list[str]:
        return tasks.check_order_windows(data_interval_start, data_interval_end)

    if settings.dbt_tasks == "per_model":
        from window_tvf_pipeline.model_tasks import hourly_model_tasks

        # the priced orders after the price gate and the windows step's nodes they read (dbt's lineage)
        windows = hourly_model_tasks(settings, wait_for_price_snapshot())
    else:

        @task
        def build_event_windows(data_interval_start=None, data_interval_end=None) -> None:
            tasks.build_event_windows(data_interval_start, data_interval_end)

        @task
        def load_price_snapshots(data_interval_start=None, data_interval_end=None) -> None:
            tasks.load_price_snapshots(data_interval_start, data_interval_end)

        @task
        def build_priced_orders(data_interval_start=None, data_interval_end=None) -> None:
            tasks.build_priced_orders(data_interval_start, data_interval_end)

        windows = build_event_windows()
        prices = wait_for_price_snapshot() >> load_price_snapshots()
        priced = build_priced_orders()
        [windows, prices] >> priced
    windows >> check_order_windows()
