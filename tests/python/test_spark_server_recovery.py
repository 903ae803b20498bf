"""make airflow's supervised Spark Connect server (scripts/spark_supervisor.py, scripts/connect_server.py) repairs
what a killed server left before it serves again, so that the statement the kill cut succeeds on its retry.

The failure this covers (docs/airflow_deployment.md, "A failed run of this module"): the Spark server SIGKILLed in
the middle of a first run's `create table ... as select` leaves the table's directory with files and no table; on
the restarted server every retry of the same CREATE fails at once ([LOCATION_ALREADY_EXISTS]), and the interval
stays red. Here the kill is deterministic: each statement's tasks sleep, and the server's JVM is SIGKILLed as soon
as the statement's files appear in the warehouse:

- a first CREATE TABLE AS SELECT (files in the table's `_temporary`, no table in the metastore);
- an `insert overwrite` of a partitioned table (a `.spark-staging-*` directory with `_temporary`).

After supervisord's restart, the same statements succeed, the tables hold exactly their rows (the overwritten
table's untouched partition too), no staging or `_temporary` directory is left, and the server's log says what it
repaired, and an external table whose directory in the warehouse is not named after it is kept. Not part of
`make test` (2-3 minutes on 2 cores): `make test-airflow` runs it."""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from dbt_harness import REPO, TEST_DIR

sys.path.insert(0, str(REPO / "scripts"))
from spark_cluster import _accepts_connections, free_port  # noqa: E402
from spark_supervisor import SupervisedConnect, server_jvm  # noqa: E402

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        os.environ.get("WINDOW_TVF_TEST_AIRFLOW") != "1",
        reason="starts make airflow's supervised Spark server and kills it (2-3 minutes): run it with "
               "make test-airflow",
    ),
]

STATE_DIR = TEST_DIR / "spark_server_recovery"
SCHEMA = "recovery_test"
# Four tasks of 8 rows each, every task asleep this long before its rows: a window of seconds for the kill.
SLEEP_MS = 4000
SLOW_ROWS = (f"select id, id % 4 as part, reflect('java.lang.Thread', 'sleep', cast({SLEEP_MS} as bigint)) as nap "
             f"from range(0, 32, 1, 4)")


def _session(port: int) -> Any:
    from pyspark.sql import SparkSession

    return SparkSession.builder.remote(f"sc://127.0.0.1:{port}").create()


def _poll(ready: Any, timeout: float, what: str) -> Any:
    deadline = time.monotonic() + timeout
    while not (found := ready()):
        assert time.monotonic() < deadline, f"{what}: not after {timeout:.0f} s"
        time.sleep(0.2)
    return found


def _leftovers(table_dir: Path) -> list[str]:
    return sorted(str(p.relative_to(table_dir)) for p in table_dir.rglob("*")
                  if p.name == "_temporary" or p.name.startswith(".spark-staging-"))


def _kill_when(server: SupervisedConnect, port: int, statement: str, written: Any, table_dir: Path) -> dict:
    """Runs `statement` on the server in a thread, SIGKILLs the server's JVM once `written()` holds, waits for
    supervisord's restart; returns the statement's thread, where its error will be, and what the kill left in
    `table_dir` (read before the restarted server repairs it: the JVM's start alone takes seconds)."""
    errors: list[str] = []

    def run() -> None:
        try:
            session = _session(port)
            session.conf.set("spark.sql.sources.partitionOverwriteMode", "dynamic")
            session.sql(statement).collect()
        except Exception as error:  # the server died under it: what a task sees
            errors.append(str(error))

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    _poll(written, 120, f"files of: {statement[:60]}")
    old = server_jvm(server.state_dir)
    os.kill(old, signal.SIGKILL)
    _poll(lambda: not Path(f"/proc/{old}").exists(), 30, "the killed JVM gone")
    left = sorted(str(p.relative_to(table_dir)) for p in table_dir.rglob("*"))
    _poll(lambda: (jvm := server_jvm(server.state_dir)) not in (None, old) and _accepts_connections("127.0.0.1", port),
          300, "the server back")
    # the client gives up on the statement after its retries (a minute or so): read at the end, beside the next kill
    return {"thread": thread, "errors": errors, "left": left}


@pytest.fixture(scope="module")
def cut_writes() -> Any:
    import shutil

    shutil.rmtree(STATE_DIR, ignore_errors=True)
    port = free_port("127.0.0.1")
    server = SupervisedConnect(STATE_DIR).start({"connect": port}, memory="1g")
    warehouse = STATE_DIR / "warehouse" / f"{SCHEMA}.db"
    try:
        spark = _session(port)
        spark.conf.set("spark.sql.sources.partitionOverwriteMode", "dynamic")  # as dbt-spark's insert_overwrite
        spark.sql(f"create schema {SCHEMA}")
        spark.sql(f"create table {SCHEMA}.overwritten (id bigint, part bigint) using parquet partitioned by (part)")
        spark.sql(f"insert into {SCHEMA}.overwritten select id, id % 5 as part from range(100, 110)")
        # an external table in a directory not named after it: not a cut CREATE's, the repair must keep it
        spark.sql(f"create table {SCHEMA}.external_rows using parquet location '{warehouse}/kept_elsewhere' "
                  f"as select id from range(7)")
        seen = {
            "ctas": _kill_when(server, port, f"create table {SCHEMA}.created using parquet as {SLOW_ROWS}",
                               lambda: (warehouse / "created").exists(), warehouse / "created"),
            "overwrite": _kill_when(
                server, port,
                f"insert overwrite {SCHEMA}.overwritten partition (part) select id, part from ({SLOW_ROWS})",
                lambda: any((warehouse / "overwritten").glob(".spark-staging-*")), warehouse / "overwritten",
            ),
        }
        spark = _session(port)
        spark.conf.set("spark.sql.sources.partitionOverwriteMode", "dynamic")
        spark.sql(f"create table {SCHEMA}.created using parquet as {SLOW_ROWS.replace(str(SLEEP_MS), '0')}")
        spark.sql(f"insert overwrite {SCHEMA}.overwritten partition (part) "
                  f"select id, part from ({SLOW_ROWS.replace(str(SLEEP_MS), '0')})")
        seen["created"] = sorted(tuple(r) for r in spark.sql(f"select id from {SCHEMA}.created").collect())
        seen["overwritten"] = sorted(tuple(r) for r in spark.sql(f"select id, part from {SCHEMA}.overwritten").collect())
        seen["external"] = sorted(r.id for r in spark.sql(f"select id from {SCHEMA}.external_rows").collect())
        seen["left"] = _leftovers(warehouse)
        for statement in ("ctas", "overwrite"):
            seen[statement]["thread"].join(300)
        seen["connect_log"] = (STATE_DIR / "connect.log").read_text(errors="replace")
        yield seen
    finally:
        server.stop()


def test_the_kill_cut_both_statements_where_a_retry_used_to_fail(cut_writes: dict) -> None:
    """The CREATE's directory holds its uncommitted output: a location a new CREATE refuses while it is not empty.
    The overwrite's staging directory holds its uncommitted output."""
    for statement in ("ctas", "overwrite"):  # the statement failed: the kill came before its end
        assert cut_writes[statement]["errors"], cut_writes[statement]
    assert "_temporary" in cut_writes["ctas"]["left"], cut_writes["ctas"]
    staging = [p for p in cut_writes["overwrite"]["left"] if p.startswith(".spark-staging-")]
    assert staging and any(p.endswith("/_temporary") for p in staging), cut_writes["overwrite"]


def test_the_retried_statements_succeed_with_exactly_their_rows(cut_writes: dict) -> None:
    assert cut_writes["created"] == [(i,) for i in range(32)]
    # every partition 0-3 rewritten; partition 4 (ids 104 and 109) untouched by the overwrite
    assert cut_writes["overwritten"] == sorted([(i, i % 4) for i in range(32)] + [(104, 4), (109, 4)])


def test_the_repair_keeps_a_table_whose_directory_is_not_named_after_it(cut_writes: dict) -> None:
    assert cut_writes["external"] == list(range(7))


def test_nothing_of_the_cut_writes_is_left_and_the_server_log_says_what_it_repaired(cut_writes: dict) -> None:
    assert cut_writes["left"] == []
    log = cut_writes["connect_log"]
    assert log.count("nothing to repair") == 1, log[-3000:]  # the first start
    assert log.count("Repaired what a cut write left in recovery_test") == 2, log[-3000:]
    assert "/created" in log and ".spark-staging-" in log
