"""The documented examples as a deployment check: builds every example model of the project (Flink's window TVF
tables, window operations, Table API conveniences) with their dbt tests, then Great Expectations compares each
documented Flink example with the reference's table, row for row. Daily, and on demand after an upgrade."""

from __future__ import annotations

from airflow.sdk import DAG, task

from window_tvf_pipeline import tasks
from window_tvf_pipeline.config import Settings
from window_tvf_pipeline.dbt import dbt
from window_tvf_pipeline.model_tasks import REFERENCE_EXCLUDE

settings = Settings.from_environment()

with DAG(
    dag_id="window_tvf_reference_examples",
    description="Every example model and its tests; the Flink documentation's tables compared row for row",
    schedule="@daily",
    catchup=False,
    **settings.dag_settings(),
) as dag:

    @task
    def check_documented_examples() -> list[str]:
        return tasks.check_documented_examples()

    if settings.dbt_tasks == "per_model":  # the Airflow Variable window_tvf_dbt_tasks: one task per model
        from window_tvf_pipeline.model_tasks import reference_model_tasks

        examples = reference_model_tasks(settings)
    else:

        @task
        def build_examples() -> None:
            dbt(["build", "--exclude", *REFERENCE_EXCLUDE])

        examples = build_examples()
    examples >> check_documented_examples()
