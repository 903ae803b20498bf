"""The hourly Airflow DAG end to end: real task runs (`dag.test()`), real dbt builds on the shared SparkSession,
real Great Expectations validations; results compared with a plain-Python oracle of the landing files.

The tests of this module share one pipeline state and run in file order: intervals 0-2 first (a producer retry
duplicates interval 2's file; a copy of an hour-0 event arrives again in hour 3, after the deduplication TTL), then
a rerun, a missing price snapshot, and a failing expectation."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

from dbt_harness import REPO
from order_oracle import classified, landed_events, local_days, month_to_date, sessions_10m, tumble_15m

WORK = REPO / ".spark" / "pytest" / "scheduled_pipeline"
LANDING = WORK / "landing"
SCHEMA = "orders_pipeline_test"
LATENESS = timedelta(minutes=30)
TTL = timedelta(hours=2)
HOURS = 4  # landing files for intervals 0-3

# Set before window_tvf_pipeline and Airflow are imported: both read their settings once.
shutil.rmtree(WORK, ignore_errors=True)
os.environ.update(
    WINDOW_TVF_LANDING_DIR=str(LANDING),
    WINDOW_TVF_GX_DIR=str(WORK / "great_expectations"),
    WINDOW_TVF_SNAPSHOT_WAIT_SECONDS="3",
    WINDOW_TVF_ALLOWED_LATENESS="30 minutes",
    WINDOW_TVF_DEDUPLICATION_TTL="2 hours",
)

from window_tvf_pipeline import dag_runs  # noqa: E402
from window_tvf_pipeline.config import MICROBATCH_SUFFIX, PIPELINE_TABLES, WINDOW_TABLES, Settings  # noqa: E402
from window_tvf_pipeline.generate import write_landing  # noqa: E402
from window_tvf_pipeline.landing import event_file, price_file  # noqa: E402

SETTINGS = Settings.from_environment()
dag_runs.configure_airflow(WORK / "airflow")


@pytest.fixture(scope="module", autouse=True)
def own_schema() -> Any:
    """The pipeline writes to its own schema, apart from the example project's tables."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("WINDOW_TVF_SCHEMA", SCHEMA)
        yield


@pytest.fixture(scope="module")
def spark() -> Any:
    """The process's SparkSession, started by dbt from profiles.yml when no earlier test did."""
    from window_tvf_pipeline.spark import spark_session

    return spark_session()


@pytest.fixture(scope="module")
def hourly() -> Any:
    """The hourly DAG, with the metadata DB and pool ready and the landing files written, plus two events the
    generator never makes: one whose event time lies in a later hour than it arrived in (a producer clock ahead of
    ours), and a copy of an hour-0 event delivered again in hour 3, after the 2-hour deduplication TTL."""
    write_landing(LANDING, SETTINGS.start, HOURS)
    early = {
        "event_id": "evt_from_the_future", "user_id": "user_00001", "item_id": "item_01", "quantity": 1,
        "event_time": f"{hour(2) + timedelta(hours=1, minutes=5):%Y-%m-%dT%H:%M:%S}.000000Z",
        "arrival_time": f"{hour(1) + timedelta(minutes=50):%Y-%m-%dT%H:%M:%S}.000000Z",
    }
    with event_file(LANDING, hour(1)).open("a") as hour_1:
        hour_1.write(json.dumps(early) + "\n")
    redelivered = event_file(LANDING, hour(0)).read_text().splitlines()[0]
    with event_file(LANDING, hour(3)).open("a") as hour_3:
        hour_3.write(redelivered + "\n")
    dag_runs.prepare_airflow(SETTINGS)
    return dag_runs.load_dag("window_tvf_orders_hourly")


def hour(n: int) -> Any:
    return SETTINGS.start + timedelta(hours=n)


def naive(moment: Any) -> Any:
    """A time as Spark returns it under the UTC session."""
    return moment.replace(tzinfo=None)


def contents(spark: Any, table: str) -> list[tuple]:
    return sorted(tuple(row) for row in spark.table(f"{SCHEMA}.{table}").collect())


def tumble_rows(spark: Any) -> set[tuple]:
    return {
        tuple(row)
        for row in spark.sql(
            f"select window_start, item_id, orders, quantity, min_quantity, max_quantity "
            f"from {SCHEMA}.fct_item_sales_tumble_15m"
        ).collect()
    }


def expected(intervals: int) -> dict[str, list]:
    files = sorted((LANDING / "events").glob("*.jsonl"))
    arrived = [p for p in files if p.stem.split("_")[1] < f"{hour(intervals):%Y-%m-%dT%H}"]
    return classified(landed_events(arrived), LATENESS, TTL)


@pytest.fixture(scope="module")
def first_three_intervals(hourly: Any, spark: Any) -> dict[int, set[tuple]]:
    """Intervals 0, 1 and 2, in order; a producer retry re-delivers interval 2's file whole. Returns the tumble
    table after each interval."""
    shutil.copy(event_file(LANDING, hour(2)), LANDING / "events" / f"events_{hour(2):%Y-%m-%dT%H}_retry.jsonl")
    after = {}
    for n in range(3):
        outcome = dag_runs.run_interval(hourly, hour(n))
        assert outcome.failed_tasks == [], outcome
        after[n] = tumble_rows(spark)
    return after


def test_dags_import_without_cycles_and_with_retries(hourly: Any) -> None:
    from airflow.dag_processing.dagbag import DagBag

    bag = DagBag(dag_folder=str(REPO / "dags"))
    assert bag.import_errors == {}
    assert set(bag.dag_ids) == {"window_tvf_orders_hourly", "window_tvf_reference_examples"}
    for dag in bag.dags.values():
        assert dag.max_active_runs == 1
        assert len(list(dag.topological_sort())) == len(dag.tasks)  # raises on a cycle
        for task in dag.tasks:
            if task.task_id != "wait_for_price_snapshot":  # a sensor's timeout is its own retry policy
                assert task.retries >= 2 and task.retry_exponential_backoff, task.task_id
            assert task.pool == SETTINGS.spark_pool, task.task_id
    hourly_dag = bag.get_dag("window_tvf_orders_hourly")
    assert hourly_dag.catchup
    # The as-of join runs only after the snapshot it needs has landed and loaded.
    join = hourly_dag.get_task("build_priced_orders")
    assert {"load_price_snapshots", "wait_for_price_snapshot", "build_event_windows"} <= {
        t.task_id for t in join.get_flat_relatives(upstream=True)
    }


def test_local_days_across_the_fall_back_hour_equal_the_oracle(first_three_intervals: dict, spark: Any) -> None:
    """The sample starts at 06:00Z on November 1, 2026: New York's second 01:00 hour (clocks fall back from 02:00
    EDT to 01:00 EST); the local day holding it lasts 25 hours and ends at 05:00Z the next day. (Events of the first
    01:00 hour are late under this test's 30 minutes of lateness; make pipeline's 2 hours let them in.) Per-interval
    rebuilds of the local-day and month-to-date tables equal zoneinfo's days and their running sums."""
    truth = expected(3)
    assert SETTINGS.start == datetime(2026, 11, 1, 6, tzinfo=timezone.utc), "the fall-back hour"
    days = local_days(truth["on_time"], "America/New_York")
    columns = "window_start, window_end, item_id, orders, quantity"
    table = f"{SCHEMA}.fct_item_sales_daily_new_york"
    assert {tuple(row) for row in spark.sql(f"select {columns} from {table}").collect()} == days
    assert {row[:2] for row in days} == {(datetime(2026, 11, 1), datetime(2026, 11, 2))}
    table = f"{SCHEMA}.fct_item_sales_month_to_date_new_york"
    assert {tuple(row) for row in spark.sql(f"select {columns} from {table}").collect()} == month_to_date(days)
    # window_time: the instant of the local day's last millisecond, 23:59:59.999 EST
    window_times = spark.sql(f"select distinct window_time from {SCHEMA}.fct_item_sales_daily_new_york").collect()
    assert [row[0] for row in window_times] == [datetime(2026, 11, 2, 4, 59, 59, 999000)]


def test_late_events_of_interval_1_correct_windows_of_interval_0(first_three_intervals: dict, spark: Any) -> None:
    after_0, after_1 = first_three_intervals[0], first_three_intervals[1]
    assert after_0 == tumble_15m(expected(1)["on_time"])
    assert after_1 == tumble_15m(expected(2)["on_time"])
    first_hour = {row[:2]: row for row in after_0 if row[0] < naive(hour(1))}
    corrected = [row for row in after_1 if row[:2] in first_hour and row != first_hour[row[:2]]]
    assert corrected, "the data must contain events of hour 0 that arrive in hour 1"


def test_three_intervals_equal_the_oracle(first_three_intervals: dict, spark: Any) -> None:
    truth = expected(3)
    assert first_three_intervals[2] == tumble_15m(truth["on_time"])
    sessions = {
        tuple(row)
        for row in spark.sql(
            f"select user_id, window_start, window_end, orders, quantity from {SCHEMA}.fct_user_sessions_10m"
        ).collect()
    }
    assert sessions == sessions_10m(truth["on_time"])
    # Sessions that span an interval boundary are single sessions (the oracle never splits them).
    spanning = [s for s in sessions if s[1] < naive(hour(1)) <= s[2] - timedelta(minutes=10)]
    assert spanning, "the data must contain a visit across the 01:00 boundary"
    late = {row.event_id for row in spark.table(f"{SCHEMA}.fct_late_order_events").collect()}
    assert late == {e.event_id for e in truth["late"]} and late
    without_time = spark.table(f"{SCHEMA}.fct_order_events_without_time").count()
    assert without_time == len(truth["no_event_time"]) > 0
    early = {row.event_id for row in spark.table(f"{SCHEMA}.fct_early_order_events").collect()}
    assert early == {e.event_id for e in truth["early"]} == {"evt_from_the_future"}


def test_duplicated_file_is_absorbed_by_deduplication(first_three_intervals: dict, spark: Any) -> None:
    retry_lines = len(event_file(LANDING, hour(2)).read_text().splitlines())
    counts = spark.sql(
        f"select count(*) as lines, count(distinct event_id) as events from {SCHEMA}.stg_order_events"
    ).first()
    assert counts.lines - counts.events >= retry_lines  # every retried line is in stg as delivered...
    assert spark.table(f"{SCHEMA}.int_order_events").count() == counts.events  # ...and once after dedup


def test_rerun_of_an_interval_leaves_every_table_identical(first_three_intervals: dict, hourly: Any, spark: Any) -> None:
    before = {table: contents(spark, table) for table in PIPELINE_TABLES}
    assert dag_runs.run_interval(hourly, hour(1)).failed_tasks == []
    after = {table: contents(spark, table) for table in PIPELINE_TABLES}
    for table in PIPELINE_TABLES:
        assert after[table] == before[table], table


def test_microbatch_mode_builds_the_same_windows(
    first_three_intervals: dict, hourly: Any, spark: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The DAG's microbatch mode: interval 2 again, building the window tables' dbt microbatch twins
    (models/order_pipeline/windows_microbatch) for the batches its events can change (--event-time-start
    --event-time-end), checked by the same Great Expectations suites. Each twin holds its insert_overwrite table's
    windows of the day batch built (window_time before midnight UTC: New York's day of November 1 ends at 05:00Z
    on the 2nd, in the next batch), row for row."""
    monkeypatch.setenv("WINDOW_TVF_WINDOW_MODELS", "microbatch")
    outcome = dag_runs.run_interval(hourly, hour(2))
    assert outcome.failed_tasks == [], outcome
    assert len(outcome.passed_checks) == 9, outcome.passed_checks
    differences = {}
    for table in WINDOW_TABLES:
        columns = ", ".join(spark.table(f"{SCHEMA}.{table}").columns)
        expected = spark.sql(f"select {columns} from {SCHEMA}.{table} where window_time < '2026-11-02T00:00:00+00:00'")
        twin = spark.sql(f"select {columns} from {SCHEMA}.{table}{MICROBATCH_SUFFIX}")
        differences[table] = (expected.count() > 0, expected.exceptAll(twin).count(), twin.exceptAll(expected).count())
    # New York's first local day here (November 1) ends in the batch of November 2, not built: those twins are empty.
    local = {"fct_item_sales_daily_new_york", "fct_item_sales_month_to_date_new_york"}
    assert differences == {table: (table not in local, 0, 0) for table in WINDOW_TABLES}


def test_join_waits_for_the_price_snapshot(first_three_intervals: dict, hourly: Any, spark: Any) -> None:
    snapshot = price_file(LANDING, hour(3))  # in force from 03:00: interval 3 needs it
    held_back = snapshot.with_suffix(".held")
    snapshot.rename(held_back)
    outcome = dag_runs.run_interval(hourly, hour(3))
    assert outcome.state == "failed"
    assert set(outcome.failed_tasks) == {"wait_for_price_snapshot", "load_price_snapshots", "build_priced_orders"}
    priced_hours = {row[0] for row in spark.sql(f"select distinct arrival_hour from {SCHEMA}.fct_order_events_priced").collect()}
    assert naive(hour(3)) not in priced_hours and naive(hour(2)) in priced_hours
    held_back.rename(snapshot)
    assert dag_runs.run_interval(hourly, hour(3)).failed_tasks == []
    valid_from = spark.sql(
        f"select distinct price_valid_from from {SCHEMA}.fct_order_events_priced "
        f"where arrival_hour = timestamp'{hour(3).isoformat()}' and event_time >= timestamp'{hour(3).isoformat()}'"
    ).collect()
    assert [row[0] for row in valid_from] == [naive(hour(3))]


def test_a_copy_after_the_ttl_counts_as_a_new_event(first_three_intervals: dict, hourly: Any, spark: Any) -> None:
    """Interval 3 ran in the test above: the hour-0 event delivered again in hour 3 is 3 hours past its first
    arrival, more than the 2-hour TTL, so it is kept again (and, 3 hours after its event time, it is late)."""
    truth = expected(4)
    redelivered = json.loads(event_file(LANDING, hour(0)).read_text().splitlines()[0])["event_id"]
    kept = spark.sql(
        f"select arrival_hour, arrival_status from {SCHEMA}.int_order_events where event_id = '{redelivered}'"
    ).collect()
    assert sorted(tuple(row) for row in kept)[-1] == (naive(hour(3)), "late")
    by_status = spark.sql(f"select arrival_status, count(*) from {SCHEMA}.int_order_events group by 1").collect()
    assert dict(tuple(row) for row in by_status) == {status: len(events) for status, events in truth.items() if events}


# What each model may read when interval 3 ([09:00, 10:00) on 2026-11-01, allowed lateness 30 minutes, TTL 2 hours)
# is rebuilt, whatever the history before it: {model: {table scanned: partitions read}}. Arrival hours 06-09 exist.
#   int_order_events: the interval's staged hour; its own state after 09:00 - TTL = 07:00: hour 08.
#   windows: events from the first window that ends after E = 08:30 (sessions: the earliest open session), i.e.
#            arrival hours after that minus 1 hour; their own table: the dates from E's on (one).
#   New York's local day: from local midnight (04:00Z, all four hours); its month-to-date cascade: the daily table's
#            partitions from that day on (one), its own 30 (one window per day to the month's end, all changeable).
#   the as-of join: the interval's events; the snapshots from the one in force at 08:30 (06:00 and 09:00).
EXPECTED_READS = {
    "stg_order_events": {"text files": None},
    "int_order_events": {"stg_order_events": 1, "int_order_events": 1},
    "fct_item_sales_tumble_15m": {"int_order_events": 2, "fct_item_sales_tumble_15m": 1},
    "fct_item_sales_hop_1h_15m": {"int_order_events": 3, "fct_item_sales_hop_1h_15m": 1},
    "fct_item_sales_cumulate_1h_1d": {"int_order_events": 4, "fct_item_sales_cumulate_1h_1d": 1},
    "fct_item_sales_daily_new_york": {"int_order_events": 4, "fct_item_sales_daily_new_york": 1},
    "fct_item_sales_month_to_date_new_york": {"fct_item_sales_daily_new_york": 1, "fct_item_sales_month_to_date_new_york": 30},
    "fct_top_items_1h": {"int_order_events": 2, "fct_top_items_1h": 1},
    "fct_user_sessions_10m": {"int_order_events": 2, "fct_user_sessions_10m": 1},
    "stg_item_prices": {"text files": None},
    "fct_order_events_priced": {"int_order_events": 1, "stg_item_prices": 2},
}
PARTITION_COLUMN = {"stg_order_events": "arrival_hour", "int_order_events": "arrival_hour", "stg_item_prices": "valid_from"}


def test_each_model_reads_only_what_its_interval_needs(first_three_intervals: dict, hourly: Any, spark: Any) -> None:
    """From Spark's executed plans: every scan of a partitioned pipeline table by a model has partition filters on
    its partition column, and reads exactly the partitions its interval needs (arrival hours 00-03 exist, the
    cumulate's day started at 00:00, so it reads them all: a day's arrivals are its bound); the landing files read
    are the interval's own."""
    from window_tvf_pipeline.spark import last_execution_id, queries_since

    assert spark.sql(f"show partitions {SCHEMA}.int_order_events").count() == 4
    mark = last_execution_id(spark)
    assert dag_runs.run_interval(hourly, hour(3)).failed_tasks == []
    reads: dict[str, dict[str, Any]] = {}
    for query in queries_since(spark, mark):
        model = (query.written_table or "").split(".")[-1]
        for scan in query.scans if model in EXPECTED_READS else []:
            table = scan.table.split(".")[-1]
            reads.setdefault(model, {})[table] = scan.partitions_read
            column = PARTITION_COLUMN.get(table, "window_date")
            if scan.partitions_read is not None:
                assert column in scan.partition_filters, (model, scan)
            if table == "text files" and model == "stg_order_events":
                assert scan.files_read == 1, scan  # events_<hour 03>.jsonl (with the re-delivered line)
    assert reads == EXPECTED_READS


def test_failed_expectation_fails_the_run_with_a_readable_message(first_three_intervals: dict, hourly: Any, spark: Any) -> None:
    from window_tvf_pipeline.quality import QualityCheckFailed, validate_order_windows

    # A misaligned window among the final windows of the date interval 3 rewrites: the run copies it, the check
    # validates every window of the dates it rewrote.
    table = f"{SCHEMA}.fct_item_sales_tumble_15m"
    day = SETTINGS.start.date().isoformat()
    spark.sql(
        f"""
        insert into {table}
        select timestamp_ntz'{day} 00:07:00', timestamp_ntz'{day} 00:22:00', timestamp'{day} 00:21:59.999',
            'item_99', 1, 1, 1, 1, date'{day}'
        """
    )
    check = hourly.get_task("check_order_windows")
    retries, check.retries = check.retries, 0  # the retries would fail the same way, only later
    try:
        outcome = dag_runs.run_interval(hourly, hour(3))
        assert outcome.state == "failed" and outcome.failed_tasks == ["check_order_windows"]
        with pytest.raises(QualityCheckFailed) as failure:
            validate_order_windows(hour(3), hour(4))
        message = str(failure.value)
        assert "suite 'order_windows.tumble_15m' failed" in message
        assert "expect_column_values_to_be_in_set({'column': 'start_off_grid', 'value_set': [0]})" in message
        assert "'item_id': 'item_99'" in message and "Data Docs:" in message
        assert Path(message.rsplit("Data Docs: ", 1)[1].strip()).exists()
    finally:
        check.retries = retries
        spark.conf.set("spark.sql.sources.partitionOverwriteMode", "dynamic")
        spark.sql(
            f"insert overwrite table {table} partition (window_date) "
            f"select * from {table} where window_date = date'{day}' and item_id != 'item_99'"
        )


@pytest.mark.parametrize(
    ("target", "concurrency"),
    [("embedded", "1 ['window_tvf_spark']"), ("cluster", "1 ['window_tvf_spark']"), ("connect", "4 ['default_pool']")],
)
def test_the_target_comes_from_airflow_config_and_servers_lift_the_one_driver_limit(target: str, concurrency: str) -> None:
    """Parsed in a fresh process, as a scheduler would, with the Airflow Variable in its environment form."""
    show = (
        "import runpy; dag = runpy.run_path('window_tvf_orders_hourly.py')['dag'];"
        "print(dag.max_active_tasks, sorted({t.pool for t in dag.tasks}))"
    )
    parsed = subprocess.run(
        [sys.executable, "-c", show],
        cwd=REPO / "dags",
        env={**os.environ, "AIRFLOW_VAR_WINDOW_TVF_TARGET": target, "PYTHONPATH": str(REPO / "dags")},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert parsed.returncode == 0, parsed.stderr[-2000:]
    assert parsed.stdout.strip().splitlines()[-1] == concurrency
