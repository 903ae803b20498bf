"""dbt inside an Airflow task: one in-process `dbt build` per task, so a task pays for one Spark start (and
tasks that run in one process, as under `dag.test()`, share one SparkSession).

What reaches the task log: dbt's warnings and errors at their level, then one summary line per command (dbt's own
"PASS=.. WARN=.. ERROR=.. SKIP=.. TOTAL=..", the time, where dbt's full log is) and every node that did not pass,
with its message in full. dbt's per-node progress lines go to its log file only (DBT_LOG_PATH, default
<project>/logs/dbt.log)."""

from __future__ import annotations

import json
import logging
import os
import re
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from window_tvf_pipeline.config import Settings

log = logging.getLogger(__name__)
_COLORS = re.compile(r"\x1b\[[0-9;]*m")  # dbt colors its warnings for a terminal
_LEVELS = {"warn": logging.WARNING, "error": logging.ERROR}
# dbt's statuses in its "Done." line's terms
_SUMMARY = {"success": "PASS", "pass": "PASS", "warn": "WARN", "error": "ERROR", "fail": "ERROR",
            "runtime error": "ERROR", "skipped": "SKIP", "no-op": "NO-OP"}


class DbtFailure(RuntimeError):
    """A dbt command that did not succeed; the message lists each failed node and its error."""


def _forward(event: Any) -> None:
    """dbt's warnings and errors into the task log at their own level (its console output is off)."""
    level = _LEVELS.get(event.info.level)
    if level and event.info.msg:
        log.log(level, "dbt: %s", _COLORS.sub("", event.info.msg))


def _log_file(settings: Settings) -> Path:
    return Path(os.environ.get("DBT_LOG_PATH") or settings.dbt_project_dir / "logs") / "dbt.log"


def _summarize(args: list[str], result: Any, seconds: float, settings: Settings) -> None:
    results = getattr(result, "results", None)
    command = " ".join(args)
    if results is None:
        log.info("dbt %s: done in %.1f s (full log: %s)", command, seconds, _log_file(settings))
        return
    counts = Counter(_SUMMARY.get(str(r.status), str(r.status).upper()) for r in results)
    totals = " ".join(f"{name}={counts.get(name, 0)}" for name in ("PASS", "WARN", "ERROR", "SKIP"))
    log.info("dbt %s: %s TOTAL=%d in %.1f s (full log: %s)", command, totals, len(results), seconds,
             _log_file(settings))
    for r in results:
        if str(r.status) not in ("success", "pass"):
            log.warning("  %s %s: %s", str(r.status).upper(), r.node.name, r.message)


@contextmanager
def scheduled_vars(variables: dict[str, Any]) -> Iterator[None]:
    """The interval's vars as window_tvf.scheduled_var reads them (WINDOW_TVF_VAR_<NAME>, JSON) for one dbt call,
    then the environment as it was. Not `--vars`: dbt re-parses the whole project when those change (every
    interval), while a changed environment variable re-parses only the files that read it."""
    names = {f"WINDOW_TVF_VAR_{name.upper()}": json.dumps(value) for name, value in variables.items()}
    before = {name: os.environ.get(name) for name in names}
    os.environ.update(names)
    try:
        yield
    finally:
        for name, value in before.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def dbt(args: list[str], variables: dict[str, Any] | None = None, settings: Settings | None = None) -> Any:
    """Runs `dbt <args>` and returns its result; raises DbtFailure naming what failed. `variables` are the
    interval's vars, read by the models through window_tvf.scheduled_var."""
    from dbt.cli.main import dbtRunner

    settings = settings or Settings.from_environment()
    project = str(settings.dbt_project_dir)
    command = [*args, "--project-dir", project, "--profiles-dir", project, "--target", settings.target,
               "--log-level", "none", "--log-level-file", "debug"]
    began = time.monotonic()
    with scheduled_vars(variables or {}):
        outcome = dbtRunner(callbacks=[_forward]).invoke(command)
    _summarize(args, outcome.result, time.monotonic() - began, settings)
    if outcome.success:
        return outcome.result
    failures = [
        f"{result.node.name}: {result.status} - {result.message}"
        for result in getattr(outcome.result, "results", None) or []
        if str(result.status) in ("error", "fail", "runtime error")
    ]
    raise DbtFailure(f"dbt {' '.join(args)} failed:\n" + "\n".join(failures or [str(outcome.exception)]))
