"""The conformance suites on the other supported Spark versions (`make test-compat`; the oldest inside `make test`).

Each version has a virtual environment of its own, `.venv-<name>`, synced from `requirements-<name>.lock` (the
project's dbt pins, that pyspark, pytest). It runs this repository's pytest files in a subprocess, so the embedded
Spark is that version's: its warehouse, metastore, dbt target and logs under `.spark/pytest-<name>`, apart from the
main suite's. The tests are the main suite's own, unchanged: they compare the macros' rows with Flink's documented
tables, hand-checked edge cases, the DST rows from Flink 2.3 and an independent Python reference, and fail on any
difference. Only what needs Airflow or Great Expectations (the pipeline), or starts Spark deployments, stays out.

    .venv/bin/python tests/python/spark_versions.py spark35 spark40     # what `make test-compat` runs
    .venv/bin/python tests/python/spark_versions.py --lean spark35-iceberg  # the part of `make test`
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from dbt_harness import REPO, SHORT_LIVED_JVM


@dataclass(frozen=True)
class SparkVersion:
    spark: str  # spark35: .venv-spark35, requirements-spark35.lock
    table_format: str = "parquet"  # delta, iceberg: the profile's embedded_<format> target, jars from Maven Central
    # The venv and lock file's name when not `spark`: "formats" is the whole project (Airflow and Great Expectations
    # too) on pyspark 4.0.5, so that a format's run includes the pipeline's tests (make pipeline TABLE_FORMAT=...).
    environment: str | None = None

    @property
    def name(self) -> str:
        """spark40, or spark40-delta for a table format's run."""
        return self.spark if self.table_format == "parquet" else f"{self.spark}-{self.table_format}"

    @property
    def venv(self) -> Path:
        return REPO / f".venv-{self.environment or self.spark}"

    @property
    def with_pipeline(self) -> bool:
        """Whether the venv holds Airflow and Great Expectations: the pipeline's tests run too."""
        return self.environment == "formats"

    @property
    def pyspark(self) -> str:
        """The pyspark version pinned in the lock file."""
        lock = (REPO / f"requirements-{self.environment or self.spark}.lock").read_text()
        return re.search(r"^pyspark==(\S+)", lock, re.MULTILINE).group(1)

    @property
    def jars(self) -> Path | None:
        """The table format's jars for this Spark (the Makefile fetches them: spark_conf/table_formats/pom.xml)."""
        if self.table_format == "parquet":
            return None
        minor = ".".join(self.pyspark.split(".")[:2])
        return REPO / ".spark" / "jars" / f"{self.table_format}-spark{minor}"

    @property
    def work_dir(self) -> Path:
        return REPO / ".spark" / f"pytest-{self.name}"

    @property
    def jvm_error_dir(self) -> Path:
        """Where the run's JVM writes its fatal error file (-XX:ErrorFile), if it crashes."""
        return self.work_dir / "pytest-jvm"


VERSIONS = {version.name: version for version in (
    *(SparkVersion(spark) for spark in ("spark35", "spark40")),
    *(SparkVersion("spark35", table_format) for table_format in ("delta", "iceberg")),
    *(SparkVersion("spark40", table_format, "formats") for table_format in ("delta", "iceberg")),
)}
OLDEST = VERSIONS["spark35"]
# make test's run beside the main suite: the oldest Spark on Iceberg tables, so one run covers the oldest Spark and a
# table format (the lean suites take the same CPU on Iceberg as on parquet: 217 against about 210 CPU-s). Parquet on
# 3.5 stays in make test-compat, the formats' other runs in make test-formats.
IN_MAKE_TEST = VERSIONS["spark35-iceberg"]


@dataclass(frozen=True)
class Suite:
    files: tuple[str, ...]
    select: tuple[str, ...] = ()  # the dbt build's selection (none: the whole project, as the main suite builds it)
    exclude: tuple[str, ...] = ()  # left out of that selection


# Window semantics: Flink's documented examples and edge cases (incl. the DST comparison with Flink's rows), the
# window operations (slicing against row assignment, distinct counts, Top-N, joins, cascades), and the user's side:
# every README/docs example and every macro in every position, in a project of its own. The build leaves out
# the rest of the project. `make test` runs this beside its main suite (CI's 25 minutes leave no room for more);
# `make test-compat` runs FULL, calendar windows and the Table API macros included, on 3.5 and 4.0.
LEAN = Suite(
    files=("test_documented_examples.py", "test_window_operations.py", "test_parse_json_lines_paths.py",
           "test_consumer_project.py"),
    select=("+path:models/flink_examples", "+path:models/window_operations", "+path:tests/windowing",
            "+path:tests/window_operations"),
    # The three sliced-against-rows data tests: 161 s of the main build's 392 s (2026-11-28), and again here on C1;
    # make test's CPU was 99% busy throughout, so they run on 3.5 and 4.0 in make test-compat (FULL) only.
    exclude=("assert_sliced_aggregation_equals_row_assignment", "assert_sliced_calendar_aggregation_equals_row_assignment",
             "assert_sliced_distinct_equals_row_assignment"),
)
# Everything that runs without Airflow, Great Expectations or extra Spark deployments, on the whole project's build.
FULL = Suite(files=LEAN.files + (
    "test_calendar_windows.py", "test_table_operations.py", "test_datastream_windows.py",
    "test_incremental_deduplicate.py", "test_nexmark.py", "test_value_fits.py", "test_no_silent_overflow.py",
    "test_arguments.py", "test_microbatch.py", "test_parse_json_lines.py",
    "test_window_aggregate_types.py", "test_gap_fill.py", "test_window_finality.py", "test_adapter_overrides.py",
))
# FULL and the pipeline on the embedded Spark (the hourly and reference DAGs under dag.test(), the Great Expectations
# checks, the SIGKILL during a write): for the table formats' runs, whose venv holds Airflow and Great Expectations.
WITH_PIPELINE = Suite(files=FULL.files + ("test_scheduled_pipeline.py", "test_crash_recovery.py"))


@dataclass(frozen=True)
class Outcome:
    version: SparkVersion
    returncode: int
    seconds: float
    cpu_seconds: float  # user + system, the JVM's included
    summary: str  # pytest's last line
    log: Path

    @property
    def passed(self) -> bool:
        return self.returncode == 0

    @property
    def jvm_lost(self) -> bool:
        """The run failed and its Spark JVM had gone away under it (a crash, or killed from outside): py4j could no
        longer reach the JVM, or the JVM wrote a fatal error file."""
        return not self.passed and (any(self.jvm_error_files)
                                    or any(sign in self.log.read_text(errors="replace") for sign in _JVM_LOST))

    @property
    def jvm_error_files(self) -> list[Path]:
        """The JVM's fatal error files (hs_err_pid<pid>.log) in the version's jvm_error_dir."""
        return sorted(self.version.jvm_error_dir.glob("hs_err_pid*.log"))


# What py4j says when the JVM it talks to is gone.
_JVM_LOST = ("Py4JNetworkError", "Answer from Java side is empty", "ConnectionRefusedError")
# What a JVM says before it goes (the 3.5 run's JVM once ended on "CodeCache is full": see dbt_harness.SHORT_LIVED_JVM).
_JVM_LAST_WORDS = ("VirtualMachineError", "OutOfMemoryError", "CodeCache is full", "SIGSEGV", "fatal error", "Killed", *_JVM_LOST)


def run(version: SparkVersion, suite: Suite) -> Outcome:
    """pytest in the version's venv on the suite's files; its whole output goes to <work_dir>/pytest.log. Stopping
    this process (Ctrl-C, or SIGTERM: main() turns it into an exit) stops that pytest and its JVM too: they run in a
    session of their own, which neither signal reaches."""
    background = Background(version, suite)
    try:
        return background.result()
    except BaseException:
        background.stop()
        raise


class Background(threading.Thread):
    """A run in a thread of its own. The main suite starts the oldest Spark's run once its `dbt build` is done
    (conftest.py) and waits for the outcome in that test, so the 3.5 suite overlaps the main suite's waits (JVM
    starts, child processes, sensors) instead of adding its whole time at the end."""

    def __init__(self, version: SparkVersion, suite: Suite, niceness: int = 0) -> None:
        super().__init__(daemon=True, name=f"pytest-{version.name}")
        self.version, self.suite, self.niceness = version, suite, niceness
        self.process: subprocess.Popen | None = None
        self._outcome: Outcome | None = None
        self._error: BaseException | None = None
        self.start()

    def run(self) -> None:
        try:
            self._outcome = self._pytest()
        except BaseException as error:  # handed to whoever waits for the result
            self._error = error

    def result(self) -> Outcome:
        self.join()
        if self._error is not None:
            raise self._error
        assert self._outcome is not None
        return self._outcome

    def stop(self) -> None:
        """Ends the subprocess (its JVM included) if the main suite finishes without waiting for it."""
        if self.process is not None and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
        self.join(timeout=30)

    def _pytest(self) -> Outcome:
        version, suite = self.version, self.suite
        python = version.venv / "bin" / "python"
        if not python.exists():
            raise FileNotFoundError(f"{python} is missing: `make test` or `make test-compat` creates it from "
                                    f"requirements-{version.environment or version.spark}.lock")
        log = version.work_dir / "pytest.log"
        jvm_errors = version.jvm_error_dir
        shutil.rmtree(jvm_errors, ignore_errors=True)
        jvm_errors.mkdir(parents=True)
        # Nothing of the calling process's Spark or dbt settings: the child's conftest sets its own.
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("WINDOW_TVF_", "PYSPARK", "_PYSPARK", "SPARK_HOME", "DBT_"))}
        env.update({
            "WINDOW_TVF_TEST_SPARK_DIR": str(version.work_dir / "spark"),
            "DBT_TARGET_PATH": str(version.work_dir / "target"),
            "DBT_LOG_PATH": str(version.work_dir / "logs"),
            "SPARK_LOCAL_IP": "127.0.0.1",
            "JAVA_TOOL_OPTIONS": f"{SHORT_LIVED_JVM} -XX:ErrorFile={jvm_errors}/hs_err_pid%p.log",
        })
        if suite.select:
            env["WINDOW_TVF_TEST_SELECT"] = " ".join(suite.select)
        if suite.exclude:
            env["WINDOW_TVF_TEST_EXCLUDE"] = " ".join(suite.exclude)
        if version.jars is not None:
            jars = sorted(version.jars.glob("*.jar"))
            if not jars:
                raise FileNotFoundError(f"no jars in {version.jars}: `make test` (Iceberg for Spark 3.5) and "
                                        "`make test-formats` fetch them from Maven Central")
            env.update(WINDOW_TVF_TARGET=f"embedded_{version.table_format}", WINDOW_TVF_TABLE_FORMAT=version.table_format,
                       WINDOW_TVF_SPARK_JARS=",".join(map(str, jars)))
        began = time.monotonic()
        with open(log, "w") as out:
            self.process = subprocess.Popen(
                [str(python), "-m", "pytest", "-p", "no:cacheprovider", *(f"tests/python/{f}" for f in suite.files)],
                cwd=REPO, env=env, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                start_new_session=True,  # a process group of its own: stop() ends the JVM with it
            )
            # Before pytest starts its JVM (after collecting), which inherits it. No preexec_fn: this is a thread.
            os.setpriority(os.PRIO_PROCESS, self.process.pid, self.niceness)
            cpu = _TreeCpu(self.process.pid)
            returncode = self.process.wait()
            cpu.stop()
        lines = [line for line in log.read_text().splitlines() if line.strip()]
        return Outcome(version, returncode, time.monotonic() - began, cpu.seconds, lines[-1] if lines else "", log)


class _TreeCpu(threading.Thread):
    """CPU seconds of a process and its descendants (the JVM is pytest's child, which never reaps it: getrusage of
    children would miss it), sampled every second while they run."""

    def __init__(self, pid: int) -> None:
        super().__init__(daemon=True)
        self.pid, self.by_pid, self.done = pid, {}, threading.Event()
        self.start()

    def run(self) -> None:
        import psutil  # installed with Airflow in the main venv, which runs this module

        while not self.done.wait(1.0):
            try:
                root = psutil.Process(self.pid)
                processes = [root, *root.children(recursive=True)]
            except psutil.NoSuchProcess:
                return
            for process in processes:
                try:
                    times = process.cpu_times()
                except psutil.NoSuchProcess:
                    continue
                self.by_pid[process.pid] = times.user + times.system

    def stop(self) -> None:
        self.done.set()
        self.join()

    @property
    def seconds(self) -> float:
        return sum(self.by_pid.values())


def failures(outcome: Outcome) -> str:
    """pytest's short summary of what failed (its `-ra` lines), or the log's last lines; for a JVM that went away,
    the first lines that say so and the head of the JVM's fatal error file."""
    lines = outcome.log.read_text(errors="replace").splitlines()
    failed = [line for line in lines if line.startswith(("FAILED", "ERROR"))]
    report = failed or lines[-30:]
    if outcome.jvm_lost:
        signs = [line for line in lines if any(sign in line for sign in _JVM_LAST_WORDS)]
        report += ["the JVM went away; the first lines that say so:", *signs[:10]]
        for error_file in outcome.jvm_error_files:
            report += [f"{error_file}:", *error_file.read_text(errors="replace").splitlines()[:40]]
    return "\n".join(report)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("versions", nargs="+", choices=sorted(VERSIONS))
    parser.add_argument("--lean", action="store_true", help="the part of make test: window semantics only")
    parser.add_argument("--files", nargs="+", metavar="FILE", help="only these test files (a development run), "
                        "on the whole project's build")
    parser.add_argument("--select", nargs="+", metavar="SELECTOR", help="with --files: build only this dbt selection "
                        "(such as +fct_late_order_events) instead of the whole project")
    arguments = parser.parse_args()
    if arguments.select and not arguments.files:
        parser.error("--select needs --files (the suites build their own selection)")
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))
    outcomes = []
    for name in arguments.versions:
        version = VERSIONS[name]
        suite = LEAN if arguments.lean else WITH_PIPELINE if version.with_pipeline else FULL
        if arguments.files:
            suite = Suite(files=tuple(arguments.files), select=tuple(arguments.select or ()))
        print(f"pyspark {version.pyspark} ({version.venv.name}): {len(suite.files)} test files, "
              f"{'selected' if suite.select else 'whole'} dbt build; log: {version.work_dir / 'pytest.log'}",
              flush=True)
        outcome = run(version, suite)
        outcomes.append(outcome)
        print(f"  {'passed' if outcome.passed else 'FAILED'} in {outcome.seconds:.0f} s ({outcome.cpu_seconds:.0f} "
              f"CPU s): {outcome.summary}", flush=True)
        if not outcome.passed:
            print(failures(outcome), flush=True)
    print("Summary: " + "; ".join(f"pyspark {o.version.pyspark} {'passed' if o.passed else 'FAILED'} "
                                  f"({o.seconds:.0f} s)" for o in outcomes))
    return 0 if all(o.passed for o in outcomes) else 1


if __name__ == "__main__":
    sys.exit(main())
