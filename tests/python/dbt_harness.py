"""Runs dbt in this Python process, so every invocation shares one SparkSession (one JVM, one Derby lock)."""

from __future__ import annotations

import functools
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
# Where a run of the tests keeps its files: its warehouse and metastore (conftest) and each module's own work
# (landing files, child processes' Spark directories), so that runs side by side (spark_versions.py's runs on other
# Spark versions and table formats name theirs, .spark/pytest-<name>) never share a file.
TEST_DIR = Path(os.environ.get("WINDOW_TVF_TEST_SPARK_DIR", REPO / ".spark" / "pytest"))
SHORT_LIVED_JVM = "-XX:TieredStopAtLevel=1 -XX:ReservedCodeCacheSize=240m -XX:+UseSerialGC"
# Nodes a lean run leaves out of the build (spark_versions.py's LEAN.exclude, passed in this variable): conftest's
# build excludes them, and the tests that list the build's nodes expect them absent.
EXCLUDED_FROM_BUILD = os.environ.get("WINDOW_TVF_TEST_EXCLUDE", "").split()


def configure_environment(spark_dir: Path) -> None:
    """Point the embedded Spark at `spark_dir`; must run before dbt starts the SparkSession."""
    os.environ["WINDOW_TVF_SPARK_DIR"] = str(spark_dir)
    os.environ["WINDOW_TVF_SPARK_CONF_DIR"] = str(REPO / "spark_conf")
    os.environ["DBT_PROFILES_DIR"] = str(REPO)
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    os.environ["DBT_SEND_ANONYMOUS_USAGE_STATS"] = "False"


def partition_count(spark: Any, table: str) -> int:
    """How many partitions `table` holds: `show partitions`, which Delta Lake and Iceberg do not support
    (PARTITION_MANAGEMENT_IS_UNSUPPORTED); on Iceberg its `partitions` metadata table, one row per partition; on
    Delta the distinct values of the partition columns `describe detail` names (Delta keeps no empty partition)."""
    if TABLE_FORMAT == "iceberg":
        return spark.sql(f"select count(*) from {table}.partitions").collect()[0][0]
    if TABLE_FORMAT == "delta":
        columns = ", ".join(spark.sql(f"describe detail {table}").first()["partitionColumns"])
        return spark.sql(f"select count(*) from (select distinct {columns} from {table})").first()[0]
    return spark.sql(f"show partitions {table}").count()


def partitions_read(spark: Any, scan: Any) -> int | None:
    """The partitions a scan (window_tvf_pipeline.spark.Scan) read; None for a table without partitions. Iceberg's
    scan counts data files, not partitions ("number of result data files"): there the table must hold exactly one
    data file per partition (asserted on its current snapshot), so that the files it read are the partitions."""
    if TABLE_FORMAT != "iceberg" or scan.partitions_read is not None or scan.table.endswith(" files"):
        return scan.partitions_read
    if "partition" not in spark.table(f"{scan.table}.partitions").columns:
        return None
    files, partitions = spark.sql(f"select count(*), count(distinct partition) from {scan.table}.files").first()
    assert files == partitions, f"{scan.table}: {files} data files in {partitions} partitions"
    return scan.files_read


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

    paths = ["--project-dir", str(project_dir), "--profiles-dir", str(project_dir)]
    manifest = _parsed_manifest() if project_dir == REPO and _inline_compile(args) else None
    if manifest is not None:
        args = [*args, "--no-write-json", "--no-populate-cache"]
    try:
        outcome = dbtRunner(manifest=manifest, callbacks=[collect]).invoke([*args, *paths])
    finally:
        if manifest is not None:
            _drop_inline_node(manifest)
    return DbtRun(outcome.success, outcome.result, outcome.exception, log)


def _inline_compile(args: list[str]) -> bool:
    from pyspark.sql import SparkSession

    return (args[:1] == ["compile"] and "--inline" in args and "--vars" not in args
            and SparkSession._instantiatedSession is not None)


def _drop_inline_node(manifest: Any) -> None:
    """dbt adds the inline query to the manifest as a node and removes it after a run that got that far; a macro
    error while compiling it leaves it there, and the next inline compile would fail as a second "inline_query"."""
    for nodes in (manifest.nodes, manifest.disabled):
        for unique_id in [key for key in nodes if key.split(".")[-1] == "inline_query"]:
            nodes.pop(unique_id)


# `compile --inline` against this project (not the throw-away projects tests write) is the tests' most frequent dbt
# call (some 280 in make test). dbt would parse the project again, write manifest.json and list every table of the
# schema (its relation cache) for each: about 2 s a call after the build. With the project's manifest parsed once and
# neither of the other two, a call takes 0.1-0.3 s when the macro rejects its arguments and under a second when it
# compiles. Only once this process's SparkSession is open (the first dbt call opens it with the profile's settings);
# parsed again whenever the environment dbt reads (WINDOW_TVF_*, DBT_*) changed. The compiled SQL is the same: a
# macro that looks a relation up (adapter.get_relation) asks Spark instead of the cache.
def _parsed_manifest() -> Any:
    return _manifest_for(tuple(sorted((k, v) for k, v in os.environ.items() if k.startswith(("WINDOW_TVF_", "DBT_")))))


@functools.lru_cache(maxsize=1)
def _manifest_for(environment: tuple) -> Any:
    """The project parsed under `environment` (the variables dbt reads); None if it does not parse."""
    from dbt.cli.main import dbtRunner

    outcome = dbtRunner().invoke(["parse", "--quiet", "--project-dir", str(REPO), "--profiles-dir", str(REPO)])
    return outcome.result if outcome.success else None


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
