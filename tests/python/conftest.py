from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

from dbt_harness import EXCLUDED_FROM_BUILD, REPO, TEST_DIR, DbtRun, configure_environment, run_dbt

# The DAGs' support package (dags/window_tvf_pipeline), importable as Airflow makes it.
sys.path.insert(0, str(REPO / "dags"))

# Tests get their own warehouse and metastore, fresh each run, apart from the pipeline's .spark/ (the runs on other
# Spark versions, spark_versions.py, name theirs). `make test` runs three pytest-xdist workers: each is a process with
# its own SparkSession, so its own warehouse, Derby metastore (one process per metastore) and dbt target and log
# directories; the run's controller (or a run without workers) empties the whole directory first.
WORKER = os.environ.get("PYTEST_XDIST_WORKER")
SPARK_DIR = TEST_DIR / WORKER if WORKER else TEST_DIR
if WORKER:
    os.environ["DBT_TARGET_PATH"] = str(SPARK_DIR / "target")
    os.environ["DBT_LOG_PATH"] = str(SPARK_DIR / "logs")
else:
    shutil.rmtree(TEST_DIR, ignore_errors=True)
configure_environment(SPARK_DIR)

# The test modules that share the session's `dbt build` (and the oldest Spark's run, started after it) stay on one
# worker; these build what they need, each a group of its own, and run beside the build's group (see
# pytest_xdist_make_scheduler). A new module joins the build's group unless it is named here.
BUILD_GROUP = "build"
OWN_GROUP = {"test_scheduled_pipeline", "test_crash_recovery", "test_spark_clusters", "test_incremental_deduplicate",
             "test_airflow_deployment", "test_microbatch", "test_consumer_project"}


@pytest.fixture(scope="session")
def build(pytestconfig: pytest.Config) -> DbtRun:
    """One `dbt build` of the whole project: seeds, example models, and every data test (the lean run on the oldest
    Spark, spark_versions.py, builds only the selection in WINDOW_TVF_TEST_SELECT). The run on the oldest Spark
    starts when it is done (see pytest_collection_modifyitems)."""
    selection = os.environ.get("WINDOW_TVF_TEST_SELECT", "").split()
    try:
        return run_dbt(["build", *(["--select", *selection] if selection else []),
                        *(["--exclude", *EXCLUDED_FROM_BUILD] if EXCLUDED_FROM_BUILD else [])])
    finally:
        if OLDEST_SPARK_RUN in pytestconfig.stash:  # its test is selected
            _start_oldest_spark_run(pytestconfig)


@pytest.fixture(scope="session")
def built(build: DbtRun) -> DbtRun:
    """For tests that need the project's tables; fails loudly if the build itself errored."""
    assert build.result is not None, build.messages
    return build


@pytest.fixture(scope="session")
def spark(built: DbtRun):
    """dbt's own in-process SparkSession, to read what the build wrote."""
    from pyspark.sql import SparkSession

    return SparkSession.builder.getOrCreate()


@pytest.fixture(scope="session")
def project_spark() -> Any:
    """The process's SparkSession opened by dbt from the main project's profiles.yml (warehouse, metastore, session
    zone, a table format's jars and catalog) without building the project: for the modules that build their own
    throw-away projects (conftest.OWN_GROUP), whose profiles set none of that, before their first dbt run."""
    from window_tvf_pipeline.spark import spark_session

    return spark_session()


OLDEST_SPARK_RUN = pytest.StashKey["Background | None"]()


@pytest.hookimpl(optionalhook=True)  # a hook of pytest-xdist, which the other Spark versions' venvs do not have
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """make test's scheduling: the modules in OWN_GROUP each go to a worker whole, every other module to the worker
    that builds the project, in their order (a module's tests may count on what its earlier tests did, and the
    build group's on the build before them). pytest-xdist's own --dist loadgroup did not group here (xdist 3.8.0 on
    pytest 9.2.0: the tests of a module all marked xdist_group ran on both workers); its scope scheduling with
    this scope does."""
    from xdist.scheduler import LoadScopeScheduling

    class BuildGroup(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            module = nodeid.split("::", 1)[0]
            return module if Path(module).stem in OWN_GROUP else BUILD_GROUP

    return BuildGroup(config, log)


def pytest_collection_finish(session: pytest.Session) -> None:
    """test_spark_versions.py's run on the oldest Spark (a pytest of its own in a subprocess, 4-6 minutes) runs beside
    the main suite rather than at its turn near the end. It starts once the main suite's `dbt build` is done (the
    build fixture): the build keeps both cores busy, and the two slowed each other (on 2 cores the build took 377 s
    beside the 3.5 run and 221 s alone), while most of what follows waits on JVM starts, child processes and sensors.
    (After -k and -m have deselected: session.items is the final selection.)"""
    config = session.config
    if not config.option.collectonly and any(item.path.name == "test_spark_versions.py" for item in session.items):
        config.stash[OLDEST_SPARK_RUN] = None  # selected; started by _start_oldest_spark_run


def _start_oldest_spark_run(config: pytest.Config) -> "Background":
    run = config.stash.get(OLDEST_SPARK_RUN, None)
    if run is None:
        from spark_versions import IN_MAKE_TEST, LEAN, Background

        # Niced: the main suite's processes come first; the 3.5 run takes the CPU they leave (their waits).
        run = config.stash[OLDEST_SPARK_RUN] = Background(IN_MAKE_TEST, LEAN, niceness=10)
    return run


@pytest.fixture(scope="session")
def oldest_spark_run(pytestconfig: pytest.Config) -> "Background":
    """The oldest Spark's run, started after the build, or now if no test built (its outcome waited for by the test
    that uses it)."""
    return _start_oldest_spark_run(pytestconfig)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Stop Spark and close py4j's gateway while the session's streams are open, and say nothing more after.

    Once Airflow has configured logging, py4j's "Closing down clientserver connection" lines (INFO) go through a
    handler on the process's stdout, which is block-buffered under `| tee` or CI: written before pytest's summary,
    they reached the terminal after it, at exit. Logging at INFO and below is off from here on, and stdout is
    flushed before the summary, so pytest's summary line stays the last line."""
    import logging

    from window_tvf_pipeline.spark import stop_spark

    logging.disable(logging.INFO)
    stop_spark()
    if session.config.stash.get(OLDEST_SPARK_RUN, None) is not None:
        session.config.stash[OLDEST_SPARK_RUN].stop()
    sys.stdout.flush()
