"""What the benchmarks share: one local[2] SparkSession that dbt's session method reuses (so dbt compiles and runs
in the same JVM that times the queries), dbt invoked in-process, and timing a query into Spark's no-op sink."""

from __future__ import annotations

import os
import statistics
import subprocess
import threading
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable

REPO = Path(__file__).resolve().parents[1]
CORES = 2  # local[2]: the per-core figures divide by this
BENCHMARKS = REPO / "docs" / "benchmarks"  # one page per benchmark; its script writes its results between markers


@dataclass(frozen=True)
class BenchSpark:
    """Where a benchmark's Spark keeps its warehouse and metastore, and how the session is sized."""

    spark_dir: Path
    driver_memory: str = "12g"
    shuffle_partitions: int = 8
    log_file: Path | None = None  # Spark's log messages go here instead of the terminal

    def configure_environment(self) -> None:
        """The profile's variables for this Spark; must run before dbt or Spark starts."""
        os.environ.update({
            "WINDOW_TVF_SPARK_DIR": str(self.spark_dir),
            "WINDOW_TVF_SPARK_CONF_DIR": str(REPO / "spark_conf"),
            "WINDOW_TVF_SPARK_MASTER": f"local[{CORES}]",
            "WINDOW_TVF_SHUFFLE_PARTITIONS": str(self.shuffle_partitions),
            "WINDOW_TVF_DRIVER_MEMORY": self.driver_memory,
            "DBT_PROFILES_DIR": str(REPO),
            "DBT_SEND_ANONYMOUS_USAGE_STATS": "False",
        })
        os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")

    def session(self, conf: dict[str, str] | None = None):
        """The SparkSession; dbt's session method reuses it (static settings apply only to the first getOrCreate).
        `conf`: more settings (a table format's jars, extensions and catalogs)."""
        from pyspark.sql import SparkSession

        if self.log_file:
            self.log_file.parent.mkdir(parents=True, exist_ok=True)
            self._log_python_side_errors(self.log_file.with_name("pyspark.log"))
        logging = (f"-Dlog4j2.configurationFile={REPO / 'bench' / 'log4j2-file.properties'} "
                   f"-Dwindow_tvf.log_file={self.log_file}" if self.log_file
                   else f"-Dlog4j2.configurationFile={REPO / 'spark_conf' / 'log4j2.properties'}")
        builder = SparkSession.builder
        for key, value in (conf or {}).items():
            builder = builder.config(key, value)
        return (
            builder.master(f"local[{CORES}]").appName("window_tvf_bench")
            .config("spark.driver.memory", self.driver_memory)
            .config("spark.sql.session.timeZone", "UTC")
            .config("spark.sql.ansi.enabled", "false")  # as dbt-spark's session method sets it for dbt's queries
            .config("spark.sql.shuffle.partitions", str(self.shuffle_partitions))
            .config("spark.ui.enabled", "false")
            .config("spark.ui.showConsoleProgress", "false")
            .config("spark.sql.warehouse.dir", str(self.spark_dir / "warehouse"))
            .config("spark.local.dir", str(self.spark_dir / "tmp"))
            .config("spark.driver.extraJavaOptions", f"-Dderby.system.home={self.spark_dir} {logging}")
            .config("spark.hadoop.javax.jdo.option.ConnectionURL",
                    f"jdbc:derby:;databaseName={self.spark_dir / 'metastore_db'};create=true")
            .enableHiveSupport()
            .getOrCreate()
        )

    @staticmethod
    def _log_python_side_errors(path: Path) -> None:
        """PySpark logs every failed SQL statement (dbt's expected "table not found" probes too) as JSON on stderr."""
        import logging

        try:
            from pyspark.logger import PySparkLogger
        except ImportError:  # pyspark 3.5 has no such logger (and does not log failed statements)
            return

        logger = PySparkLogger.getLogger("SQLQueryContextLogger")
        for handler in list(logger.handlers):
            logger.removeHandler(handler)
        logger.addHandler(logging.FileHandler(path))
        logger.propagate = False


def dbt(args: list[str], log_path: Path | None = None, project_dir: Path = REPO, callbacks: list | None = None,
        messages: list[str] | None = None) -> Any:
    """`dbt <args>` in this process, quiet (its log file: log_path, default ./logs), on this project or another
    (`project_dir`, whose profiles.yml is beside it); `callbacks` receive dbt's events, `messages` what window_tvf's
    macros log (e.g. the slices' shuffle estimate). Returns its result, raises naming what failed."""
    from dbt.cli.main import dbtRunner

    def collect(event: Any) -> None:
        if messages is not None and event.info.msg.startswith("window_tvf:"):
            messages.append(event.info.msg)

    # nothing on the terminal (not even the compiled SQL `dbt compile --quiet` shows); errors come back raised
    logging = ["--log-level", "none", "--log-level-file", "info", *(["--log-path", str(log_path)] if log_path else [])]
    outcome = dbtRunner(callbacks=[collect, *(callbacks or [])]).invoke(
        [*args, *logging, "--project-dir", str(project_dir), "--profiles-dir", str(project_dir)])
    if not outcome.success:
        failed = [f"{r.node.name}: {r.message}" for r in getattr(outcome.result, "results", None) or []
                  if str(r.status) in ("error", "fail", "runtime error")]
        raise RuntimeError(f"dbt {' '.join(args[:3])} ... failed: {failed or outcome.exception}")
    return outcome.result


def compile_inline(sql: str, log_path: Path | None = None, messages: list[str] | None = None) -> str:
    """The SQL that dbt compiles `sql` (Jinja, e.g. a macro call) to; `messages` as for dbt()."""
    return dbt(["compile", "--inline", sql], log_path, messages=messages).results[0].node.compiled_code


def timed(spark, sql: str, repeats: int, timeout_s: int) -> float | None:
    """Median seconds of `repeats` runs into the no-op sink; None when a run passes timeout_s (it is cancelled).
    Any other failure is raised: a broken query must not pass for a slow one."""
    runs = []
    for _ in range(repeats):
        seconds = _run_once(spark, sql, timeout_s)
        if seconds is None:
            return None
        runs.append(seconds)
    return statistics.median(runs)


def timed_together(spark, queries: dict[str, str | None], repeats: int, timeout_s: int) -> dict[str, float | None]:
    """Median seconds per query (None: not given, or passed timeout_s), running the queries in turn `repeats` times
    (each round runs every query once), so that none of them alone pays for a cold start or a busy moment."""
    runs = timed_rounds(spark, queries, repeats, timeout_s)
    return {name: statistics.median(runs[name]) if runs.get(name) else None for name in queries}


def timed_rounds(spark, queries: dict[str, str | None], rounds: int, timeout_s: int,
                 progress: Callable[[int, str, float | None], None] | None = None) -> dict[str, list[float] | None]:
    """Every run's seconds per query given (None: a run passed timeout_s, and the query runs no more), the queries
    run in turn `rounds` times (each round runs every query once); `progress(round, name, seconds)` after each run."""
    runs: dict[str, list[float] | None] = {name: [] for name, sql in queries.items() if sql}
    for round_number in range(1, rounds + 1):
        for name, sql in queries.items():
            if sql and runs[name] is not None:
                seconds = _run_once(spark, sql, timeout_s)
                runs[name] = None if seconds is None else [*runs[name], seconds]
                if progress:
                    progress(round_number, name, seconds)
    return runs


def _run_once(spark, sql: str, timeout_s: int) -> float | None:
    """Seconds of one run into the no-op sink, or None when it passed timeout_s (it is cancelled)."""
    group = f"bench-{time.monotonic_ns()}"
    cancelled = threading.Event()

    def cancel(group: str = group, cancelled: threading.Event = cancelled) -> None:
        cancelled.set()
        spark.sparkContext.cancelJobGroup(group)

    spark.sparkContext.setJobGroup(group, "benchmark query", interruptOnCancel=True)
    timer = threading.Timer(timeout_s, cancel)
    timer.start()
    start = time.perf_counter()
    try:
        spark.sql(sql).write.format("noop").mode("overwrite").save()
    except Exception:
        if cancelled.is_set():
            return None
        raise
    finally:
        timer.cancel()
    return time.perf_counter() - start


def cell(seconds: float | None, timeout_s: int) -> str:
    return f"{seconds:.2f}" if seconds is not None else f"> {timeout_s}"


def ratio(value: float | None, base: float | None) -> str:
    return f"{value / base:.2f}x" if value is not None and base else "-"


BENCH_SCHEMA = "window_tvf_bench"


def event_table(spark, data_dir: Path, name: str, rows: int, key_sql: str, start: str, days: int,
                table: str | None = None) -> str:
    """`rows` events over `days` days from `start`, the key of row `id` given by `key_sql` (an expression of `id`),
    an int amount in [0, 1000): the same on every run (hashes of the row number), written once as parquet under
    data_dir/name and registered as the table `table` (default window_tvf_bench.<name>), so that the macros see the
    column types as they do for a dbt model. Returns the table's name."""
    path = data_dir / name
    if not (path / "_SUCCESS").exists():
        spark.sql(f"""
            select
                {key_sql} as event_key,
                timestamp_micros(unix_micros(timestamp'{start}') + pmod(xxhash64(id, 2), {days} * 86400000000)) as ts,
                cast(pmod(xxhash64(id, 3), 1000) as int) as amount
            from range({rows})
        """).write.mode("overwrite").parquet(str(path))
    if not spark.catalog.databaseExists(BENCH_SCHEMA):  # (the Hive client logs an error for an existing one)
        spark.sql(f"create database {BENCH_SCHEMA}")
    table = table or f"{BENCH_SCHEMA}.{name}"
    spark.sql(f"drop table if exists {table}")
    spark.sql(f"create table {table} using parquet location '{path}'")
    return table


def relation(table: str) -> str:
    """Jinja for the relation of a table `schema.name`, as ref() would give it: the macros read its column types."""
    schema, name = table.split(".")
    return f"api.Relation.create(schema='{schema}', identifier='{name}')"


def write_section(doc: Path, heading: str, begin: str, end: str, body: str) -> None:
    """Puts `body` between the markers `begin` and `end` of `doc`, replacing what was there; a doc without them gets
    them at its end, under `heading` (bench/window_aggregation.py keeps what follows its own table's reading)."""
    text = doc.read_text() if doc.exists() else ""
    section = f"{begin}\n{body}\n{end}"
    if begin in text:
        text = text[:text.index(begin)] + section + text[text.index(end) + len(end):]
    else:
        text += f"\n## {heading}\n\n{section}\n"
    doc.write_text(text)


def run_stamp() -> str:
    """When and on which commit a run ended: the line that dates a results table."""
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=REPO).stdout
    return f"{datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC, commit {commit.strip() or 'unknown'}"


def load_average() -> str:
    """The machine's load now: above the core count, other work shared it."""
    return "load average " + ", ".join(f"{value:.1f}" for value in os.getloadavg())


def process_stat(pid: int | str) -> list[str]:
    """/proc/<pid>/stat's fields after the command name (the state first), so utime and stime are [11] and [12]."""
    stat = Path(f"/proc/{pid}/stat").read_text()
    return stat[stat.rfind(")") + 2:].split()


def cpu_seconds(pid: int | str, fields: list[str] | None = None) -> float:
    """CPU seconds a process has used so far (utime + stime), from /proc (or from its stat fields already read)."""
    fields = fields or process_stat(pid)
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
