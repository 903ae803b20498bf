"""Crash safety: the process running build_event_windows is killed with SIGKILL while an insert_overwrite writes;
the retry must leave every pipeline table equal, row for row, to the tables of an uninterrupted run. Then, on the
same warehouse, the narrowest window of a commit (the old partition deleted, the staged one not yet renamed) and
its retry. On Delta Lake and Iceberg tables (make test-formats) the kill comes after a window table's new data
files are written and before their commit: the table's previous version must stay readable as it was, with
nothing for the parquet repair step to do, and the retry must give the uninterrupted run's rows.

The uninterrupted run happens in this process (the test session's Spark); the interrupted one and its retry in
child processes with a warehouse and Derby metastore of their own (tests/python/pipeline_child.py), killed as a
whole process group, JVM included."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import replace
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from dbt_harness import REPO, SHORT_LIVED_JVM, TABLE_FORMAT, TEST_DIR

from window_tvf_pipeline import tasks
from window_tvf_pipeline.config import PIPELINE_TABLES, WRITTEN_TABLES, Settings
from window_tvf_pipeline.generate import write_landing

WORK = TEST_DIR / "crash"
SCHEMA = "orders_crash_test"
HOURS = 2  # the kill comes in interval 1, which rewrites windows of interval 0 (its late events)
CHILD = Path(__file__).with_name("pipeline_child.py")
WINDOW_TABLES = [t for t in WRITTEN_TABLES if t.startswith("fct_") and t != "fct_order_events_priced"]
TRANSACTIONAL = TABLE_FORMAT in ("delta", "iceberg")  # a commit is one atomic step: a log entry, a metadata file


@pytest.fixture(scope="module")
def environment() -> Any:
    """The landing files and settings both runs share; each run has its own Spark directory."""
    landing = WORK / "landing"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("WINDOW_TVF_LANDING_DIR", str(landing))
        patch.setenv("WINDOW_TVF_SCHEMA", SCHEMA)
        settings = Settings.from_environment()
        write_landing(landing, settings.start, HOURS)
        yield settings


@pytest.fixture(scope="module")
def runs(environment: Settings) -> dict[str, dict[str, list[str]]]:
    """Intervals 0 and 1 without a crash, in this process: every pipeline table's rows as the children dump them,
    after the first interval ('first') and after the last ('last')."""
    from window_tvf_pipeline.spark import spark_session

    rows = {}
    for n in range(HOURS):
        start = environment.start + timedelta(hours=n)
        tasks.build_event_windows(start, start + timedelta(hours=1), environment)
        tasks.load_price_snapshots(start, start + timedelta(hours=1), environment)
        tasks.build_priced_orders(start, start + timedelta(hours=1), environment)
        spark = spark_session(environment)
        rows["first" if n == 0 else "last"] = {
            t: sorted(json.dumps(list(row), default=str) for row in spark.table(f"{SCHEMA}.{t}").collect())
            for t in PIPELINE_TABLES
        }
    return rows


@pytest.fixture(scope="module")
def uninterrupted(runs: dict[str, dict[str, list[str]]]) -> dict[str, list[str]]:
    return runs["last"]


def child(spark_dir: Path, *args: str, **popen: Any) -> subprocess.Popen:
    env = {**os.environ, "WINDOW_TVF_SPARK_DIR": str(spark_dir), "JAVA_TOOL_OPTIONS": SHORT_LIVED_JVM}
    return subprocess.Popen(
        [sys.executable, str(CHILD), *args], env=env, cwd=REPO, start_new_session=True,
        stdout=subprocess.DEVNULL, stderr=(spark_dir / "child.log").open("ab"), **popen,
    )


def finish(process: subprocess.Popen, spark_dir: Path) -> None:
    assert process.wait(timeout=900) == 0, (spark_dir / "child.log").read_text()[-3000:]


def retried(spark_dir: Path, *then: str) -> dict[str, list[str]]:
    """Runs the last interval again in a new process (a retry), then returns every pipeline table's rows as they
    were after it; `then`: commands the same process runs after the dump (one JVM start less)."""
    finish(child(spark_dir, "run", str(HOURS - 1), str(HOURS - 1), "then", "dump", str(spark_dir / "tables.json"),
                 *(("then", *then) if then else ())), spark_dir)
    return json.loads((spark_dir / "tables.json").read_text())


def start_last_interval(spark_dir: Path) -> tuple[subprocess.Popen, Path]:
    """A child running every interval, once it has started the last one; and its schema's warehouse directory."""
    marker = spark_dir / "last_interval_started"
    process = child(spark_dir, "run", "0", str(HOURS - 1), str(marker))
    while not marker.exists():
        assert process.poll() is None, (spark_dir / "child.log").read_text()[-3000:]
        time.sleep(0.05)
    return process, spark_dir / "warehouse" / f"{SCHEMA}.db"


def kill_while_overwriting(spark_dir: Path) -> list[str]:
    """Runs every interval and kills the whole process group as soon as, in the last one, one of the window tables
    has an insert_overwrite's staging directory; returns what the kill left in the warehouse."""
    process, warehouse = start_last_interval(spark_dir)
    while process.poll() is None:
        staging = [p for t in WINDOW_TABLES for p in (warehouse / t).glob(".spark-staging-*")]
        if staging:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
            return sorted(str(p.relative_to(warehouse)) for p in warehouse.glob("*/.spark-staging-*"))
        time.sleep(0.005)
    pytest.fail("the last interval finished before an insert_overwrite of a window table could be caught")


@pytest.mark.skipif(TRANSACTIONAL, reason=f"parquet's staging directories: {TABLE_FORMAT} commits differently (the test below)")
def test_retries_after_kills_during_overwrites_equal_an_uninterrupted_run(
    uninterrupted: dict[str, list[str]], environment: Settings
) -> None:
    """One warehouse, two kills, each repaired by the next run of the task (recovery.recover, before it rebuilds)."""
    spark_dir = WORK / "killed"
    spark_dir.mkdir(parents=True, exist_ok=True)
    warehouse = spark_dir / "warehouse" / f"{SCHEMA}.db"

    # SIGKILL while an insert_overwrite writes; the retry runs in a new process, as Airflow's would. The same process
    # then leaves the next case behind, a kill between "delete the old partition" and "rename the staged one" (the
    # window models copy their final windows from their own partitions, so without the repair the next run would
    # lose them), lists the staging directories, and does what every task run does first, the repair (one JVM start
    # less than a third process; that the task runs it is what the first retry's clean staging list shows).
    left = kill_while_overwriting(spark_dir)
    assert left, "a killed overwrite leaves its staging directory behind"
    partition = f"window_date={environment.start.date()}"
    after = retried(spark_dir, "unfinished_commit", "fct_item_sales_hop_1h_15m", partition,
                    "then", "staging", str(spark_dir / "staging.json"),
                    "then", "recover", "then", "dump", str(spark_dir / "again.json"))
    for table in PIPELINE_TABLES:
        assert after[table] == uninterrupted[table], table
    assert json.loads((spark_dir / "staging.json").read_text()) == [
        "fct_item_sales_hop_1h_15m/.spark-staging-unfinished"], "the retry removed what the kill left"

    again = json.loads((spark_dir / "again.json").read_text())
    for table in PIPELINE_TABLES:
        assert again[table] == uninterrupted[table], table
    assert [p for p in warehouse.glob("*/.spark-staging-*")] == []
    assert (warehouse / "fct_item_sales_hop_1h_15m" / partition).exists()


def commits(table_dir: Path) -> int:
    """How many commits a Delta or Iceberg table has: its log entries, its metadata files."""
    pattern = "_delta_log/*.json" if TABLE_FORMAT == "delta" else "metadata/*.metadata.json"
    return len(list(table_dir.glob(pattern)))


def data_files(table_dir: Path) -> set[Path]:
    return set(table_dir.rglob("*.parquet"))


def kill_between_write_and_commit(spark_dir: Path) -> tuple[str, int]:
    """Runs every interval and kills the whole process group as soon as, in the last one, a window table has new
    data files and no new commit; returns the table and how many uncommitted data files the kill left in it."""
    process, warehouse = start_last_interval(spark_dir)
    tables = {t: warehouse / t for t in WINDOW_TABLES}
    before = {t: (data_files(d), commits(d)) for t, d in tables.items()}
    while process.poll() is None:
        for table, table_dir in tables.items():
            files, committed = before[table]
            written = data_files(table_dir) - files
            if written and commits(table_dir) == committed:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
                assert commits(table_dir) == committed, f"{table}: its commit landed before the kill"
                return table, len(data_files(table_dir) - files)
        time.sleep(0.005)
    pytest.fail("the last interval finished before a window table's write could be caught before its commit")


@pytest.mark.skipif(not TRANSACTIONAL, reason="Delta Lake and Iceberg only (make test-formats); parquet: the test above")
def test_a_kill_before_a_commit_leaves_the_previous_version(runs: dict[str, dict[str, list[str]]]) -> None:
    """SIGKILL between a window table's data files and its commit: a new process reads the table's previous version
    (the first interval's rows), finds nothing for the parquet repair step (no staging directory, no _temporary),
    and its retry of the interval gives every table of the uninterrupted run."""
    spark_dir = WORK / f"killed-{TABLE_FORMAT}"
    spark_dir.mkdir(parents=True, exist_ok=True)
    table, uncommitted = kill_between_write_and_commit(spark_dir)
    assert uncommitted > 0
    warehouse = spark_dir / "warehouse" / f"{SCHEMA}.db"
    leftovers = [p for p in warehouse.rglob("*") if p.name.startswith((".spark-staging-", "_temporary"))]
    assert leftovers == [], "a transactional format leaves nothing for recovery.recover to repair"
    finish(child(spark_dir, "dump", str(spark_dir / "before.json"), "then", "run", str(HOURS - 1), str(HOURS - 1),
                 "then", "dump", str(spark_dir / "tables.json")), spark_dir)
    previous = json.loads((spark_dir / "before.json").read_text())
    assert previous[table] == runs["first"][table], f"{table} after the kill: its version before the killed write"
    after = json.loads((spark_dir / "tables.json").read_text())
    for name in PIPELINE_TABLES:
        assert after[name] == runs["last"][name], name
