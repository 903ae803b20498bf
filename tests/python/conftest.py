from __future__ import annotations

import shutil
import sys

import pytest

from dbt_harness import REPO, DbtRun, configure_environment, run_dbt

# The DAGs' support package (dags/window_tvf_pipeline), importable as Airflow makes it.
sys.path.insert(0, str(REPO / "dags"))

# Tests get their own warehouse and metastore, fresh each run, apart from the pipeline's .spark/.
SPARK_DIR = REPO / ".spark" / "pytest"
shutil.rmtree(SPARK_DIR, ignore_errors=True)
configure_environment(SPARK_DIR)


@pytest.fixture(scope="session")
def build() -> DbtRun:
    """One `dbt build` of the whole project: seeds, example models, and every data test."""
    return run_dbt(["build"])


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


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Stop Spark and close py4j's gateway while the session's streams are open: otherwise py4j's connection
    finalisers log "Closing down clientserver connection" at interpreter exit, into a stream pytest has closed
    (a "--- Logging error ---" traceback after the summary line)."""
    import logging

    from window_tvf_pipeline.spark import stop_spark

    stop_spark()
    # Connections py4j's finalisers close at exit still log at INFO, through Airflow's handler to stdout, after
    # pytest's summary line: nothing at INFO or below is logged from here on, so the summary stays the last line.
    logging.disable(logging.INFO)
