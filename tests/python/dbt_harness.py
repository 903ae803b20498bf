"""Runs dbt in this Python process, so every invocation shares one SparkSession (one JVM, one Derby lock)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]

# For the tests' short-lived JVMs on 2 cores (the Spark 3.5 run, the crash test's children, the cluster test's
# servers): the C1 compiler alone and one GC thread cost a third less CPU. C1 alone also shrinks the code cache to
# 48 MB, which Spark's generated classes filled ("CodeCache is full", then VirtualMachineError in a task: Spark ends
# the JVM, and every later query of the run failed with "Connection refused"), so it keeps the default 240 MB.
# The table format the build writes (profiles.yml's embedded_delta / embedded_iceberg targets set it; make
# test-formats): tables the tests create for themselves use it too, as a project on that lakehouse would. With
# Iceberg's session catalog, a parquet table dropped by name keeps its files (Iceberg's Hive catalog drops the
# metastore entry only), and the next create of that name fails with LOCATION_ALREADY_EXISTS.
TABLE_FORMAT = os.environ.get("WINDOW_TVF_TABLE_FORMAT", "parquet")
SHORT_LIVED_JVM = "-XX:TieredStopAtLevel=1 -XX:ReservedCodeCacheSize=240m -XX:+UseSerialGC"


def configure_environment(spark_dir: Path) -> None:
    """Point the embedded Spark at `spark_dir`; must run before dbt starts the SparkSession."""
    os.environ["WINDOW_TVF_SPARK_DIR"] = str(spark_dir)
    os.environ["WINDOW_TVF_SPARK_CONF_DIR"] = str(REPO / "spark_conf")
    os.environ["DBT_PROFILES_DIR"] = str(REPO)
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    os.environ["DBT_SEND_ANONYMOUS_USAGE_STATS"] = "False"


@dataclass
class DbtRun:
    success: bool
    result: Any
    exception: BaseException | None
    log: list[str] = field(default_factory=list)

    @property
    def messages(self) -> str:
        """Everything dbt reported, including errors it only logs (parse-time errors) and macros' log() output."""
        return "\n".join([*self.log, str(self.exception or "")])

    def results_by_name(self) -> dict[str, Any]:
        return {r.node.name: r for r in self.result.results}


def run_dbt(args: list[str], project_dir: Path = REPO) -> DbtRun:
    from dbt.cli.main import dbtRunner

    log: list[str] = []

    def collect(event: Any) -> None:
        if event.info.level in ("info", "error", "warn"):
            log.append(event.info.msg)

    outcome = dbtRunner(callbacks=[collect]).invoke(
        [*args, "--project-dir", str(project_dir), "--profiles-dir", str(project_dir)]
    )
    return DbtRun(outcome.success, outcome.result, outcome.exception, log)


def compile_error(sql: str) -> str:
    """What dbt reported for inline SQL that must fail to compile."""
    run = run_dbt(["compile", "--quiet", "--inline", sql])
    assert not run.success, f"compiled, but should have failed: {sql}"
    return run.messages


def compile_error_line(sql: str) -> str:
    """The one line of dbt's report that holds the window_tvf compile error of inline SQL, for exact comparison."""
    return next(line.strip() for line in compile_error(sql).splitlines() if line.strip().startswith("window_tvf."))


def compiled(sql: str) -> str:
    """Inline SQL compiled by dbt (macros expanded against the built project), for a test to run on Spark."""
    run = run_dbt(["compile", "--quiet", "--inline", sql])
    assert run.success, run.messages
    return run.result.results[0].node.compiled_code
