"""dbt inside an Airflow task: one in-process `dbt build` per task, so a task pays for one Spark start (and
tasks that run in one process, as under `dag.test()`, share one SparkSession)."""

from __future__ import annotations

import json
from typing import Any

from window_tvf_pipeline.config import Settings


class DbtFailure(RuntimeError):
    """A dbt command that did not succeed; the message lists each failed node and its error."""


def dbt(args: list[str], variables: dict[str, Any] | None = None, settings: Settings | None = None) -> Any:
    """Runs `dbt <args>` and returns its result; raises DbtFailure naming what failed."""
    from dbt.cli.main import dbtRunner

    settings = settings or Settings.from_environment()
    project = str(settings.dbt_project_dir)
    command = [*args, "--project-dir", project, "--profiles-dir", project, "--target", settings.target]
    if variables:
        command += ["--vars", json.dumps(variables)]
    outcome = dbtRunner().invoke(command)
    if outcome.success:
        return outcome.result
    failures = [
        f"{result.node.name}: {result.status} - {result.message}"
        for result in getattr(outcome.result, "results", None) or []
        if str(result.status) in ("error", "fail", "runtime error")
    ]
    raise DbtFailure(f"dbt {' '.join(args)} failed:\n" + "\n".join(failures or [str(outcome.exception)]))
