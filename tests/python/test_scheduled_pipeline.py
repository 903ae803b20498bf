"""The hourly Airflow DAG end to end: real task runs (`dag.test()`), real dbt builds on the shared SparkSession,
real Great Expectations validations; results compared with a plain-Python oracle of the landing files.

The tests of this module share one pipeline state and run in file order: intervals 0-2 first (their landing files
hold defective lines of every kind, tests/python/dirty_feeds.py; a producer retry duplicates interval 2's file; a
copy of an hour-0 event arrives again in hour 3, after the deduplication TTL), then a rerun, the rejection gate, a
missing and an empty price snapshot, and a failing expectation."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections import Counter
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

import dirty_feeds
from dbt_harness import REPO, TABLE_FORMAT, TEST_DIR, partition_count, partitions_read
from json_line_rules import file_lines
from order_oracle import (
    classified,
    landed_events,
    landed_lines,
    local_days,
    month_to_date,
    priced,
    sessions_10m,
    snapshot_prices,
    tumble_15m,
)

WORK = TEST_DIR / "scheduled_pipeline"
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
from window_tvf_pipeline.suites import Checked, _accounting  # noqa: E402

SETTINGS = Settings.from_environment()
dag_runs.configure_airflow(WORK / "airflow")


@pytest.fixture(scope="module", autouse=True)
def own_schema() -> Any:
    """The pipeline writes to its own schema, apart from the example project's tables."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("WINDOW_TVF_SCHEMA", SCHEMA)
        yield


@pytest.fixture(scope="module")
def spark(project_spark: Any) -> Any:
    """The process's SparkSession, started by dbt from profiles.yml when no earlier test did (conftest.project_spark)."""
    return project_spark


@pytest.fixture(scope="module")
def hourly() -> Any:
    """The hourly DAG, with the metadata DB and pool ready and the landing files written, plus what the generator
    never makes: an event whose event time lies in a later hour than it arrived in (a producer clock ahead of
    ours), a copy of an hour-0 event delivered again in hour 3, after the 2-hour deduplication TTL, and the
    defective lines of dirty_feeds (a file of only bad lines and an empty file in hour 1; CRLF line breaks and a
    last line without one in hour 2; price defects in the snapshot of hour 0)."""
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
    dirty_feeds.append(event_file(LANDING, hour(0)), dirty_feeds.issue_lines(hour(0)))
    dirty_feeds.append(event_file(LANDING, hour(1)), dirty_feeds.type_lines(hour(1)))
    only_bad = dirty_feeds.only_bad_lines(hour(1))
    dirty_feeds.append(part_file(1, "only_bad"), only_bad, [b"\n"] * (len(only_bad) - 1) + [b""])
    part_file(1, "empty").write_bytes(b"")
    times = [*dirty_feeds.time_lines(hour(2)), (dirty_feeds.line(hour(2), 12), None)]
    dirty_feeds.append(event_file(LANDING, hour(2)), times, [b"\r\n"] * (len(times) - 1) + [b""])
    dirty_feeds.price_defects(price_file(LANDING, hour(0)), hour(0))
    hour_3 = event_file(LANDING, hour(3))
    hour_3.write_bytes(b"\xef\xbb\xbf" + hour_3.read_bytes())  # a file written with a byte order mark
    dag_runs.prepare_airflow(SETTINGS)
    return dag_runs.load_dag("window_tvf_orders_hourly")


def hour(n: int) -> Any:
    return SETTINGS.start + timedelta(hours=n)


def part_file(n: int, part: str) -> Path:
    """Another landing file of hour n, as a second producer writes it."""
    return LANDING / "events" / f"events_{hour(n):%Y-%m-%dT%H}_{part}.jsonl"


def naive(moment: Any) -> Any:
    """A time as Spark returns it under the UTC session."""
    return moment.replace(tzinfo=None)


def contents(spark: Any, table: str) -> list[str]:
    return sorted(repr(tuple(row)) for row in spark.table(f"{SCHEMA}.{table}").collect())


def tumble_rows(spark: Any) -> set[tuple]:
    return {
        tuple(row)
        for row in spark.sql(
            f"select window_start, item_id, orders, quantity, min_quantity, max_quantity "
            f"from {SCHEMA}.fct_item_sales_tumble_15m"
        ).collect()
    }


def flagged_tumble_rows(spark: Any) -> set[tuple]:
    """The tumble table's rows with is_final (emit='on_update_flagged')."""
    return {
        tuple(row)
        for row in spark.sql(
            f"select window_start, item_id, orders, quantity, min_quantity, max_quantity, is_final "
            f"from {SCHEMA}.fct_item_sales_tumble_15m"
        ).collect()
    }


# The tumble table with is_final after each of intervals 0-2 (filled by first_three_intervals).
FLAGGED: dict[int, set[tuple]] = {}


def arrived(intervals: int) -> list[Path]:
    files = sorted((LANDING / "events").glob("*.jsonl"))
    return [p for p in files if p.stem.split("_")[1] < f"{hour(intervals):%Y-%m-%dT%H}"]


def expected(intervals: int) -> dict[str, list]:
    return classified(landed_events(arrived(intervals)), LATENESS, TTL)


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
        FLAGGED[n] = flagged_tumble_rows(spark)
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


def test_final_windows_are_right_and_never_change(first_three_intervals: dict, spark: Any) -> None:
    """is_final (docs/final_windows.md): after the interval ending at T, a window is final when its window_time is at
    or before the watermark T - allowed_lateness - 1 ms (Flink fires a window when the watermark reaches
    window_end - 1 ms): no on-time event of a later interval (event time >= T - allowed_lateness) can reach it. From
    the oracle of the landing files: every interval's flags and values; a window final after interval n is the same
    row after every later interval; a window that late events corrected turned final with the corrected values; the
    dashboard view holds exactly the final windows."""
    for n in range(3):
        watermark = naive(hour(n + 1) - LATENESS) - timedelta(milliseconds=1)
        truth = {row + (row[0] + timedelta(minutes=15) - timedelta(milliseconds=1) <= watermark,)
                 for row in tumble_15m(expected(n + 1)["on_time"])}
        assert FLAGGED[n] == truth, n
        assert {row[-1] for row in truth} == {True, False}, n
    for n, m in [(0, 1), (0, 2), (1, 2)]:
        final_then = {row for row in FLAGGED[n] if row[-1]}
        assert final_then <= FLAGGED[m], (n, m)
    # interval 1's late events (on time: within 30 minutes of their arrival hour) changed windows that interval 0
    # left provisional, and the run of interval 1 made them final with those values
    provisional_0 = {row[:2]: row for row in FLAGGED[0] if not row[-1]}
    finalized = [row for row in FLAGGED[1] if row[-1] and row[:2] in provisional_0 and row[2:-1] != provisional_0[row[:2]][2:-1]]
    assert finalized, "the data must hold late events of a window that interval 0 left provisional"
    # interval 2's late events changed windows of interval 1's run too: provisional ones only (checked above)
    after_1 = {row[:2]: row for row in FLAGGED[1]}
    changed_2 = [row for row in FLAGGED[2] if row[:2] in after_1 and row[2:-1] != after_1[row[:2]][2:-1]]
    assert changed_2 and not any(after_1[row[:2]][-1] for row in changed_2)
    final = {(row[0], row[1]) + tuple(row[2:-1]) for row in FLAGGED[2] if row[-1]}
    view = {tuple(row) for row in spark.sql(
        f"select window_start, item_id, orders, quantity, min_quantity, max_quantity "
        f"from {SCHEMA}.fct_final_item_sales_15m").collect()}
    assert view == final


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


def test_every_defective_line_is_quarantined_with_its_reason(first_three_intervals: dict, spark: Any) -> None:
    """Every line of intervals 0-2 that is no valid order event is in fct_rejected_order_events with the reason
    the oracle gives it (and the reason dirty_feeds wrote down for its lines); the empty file is there too."""
    _, rejected = landed_lines(arrived(3))
    quarantined = {
        (row.source_file, row.line_number): row
        for row in spark.table(f"{SCHEMA}.fct_rejected_order_events").collect()
    }
    assert {key: row.reason for key, row in quarantined.items()} == {
        (r.source_file, r.line_number): r.reason for r in rejected
    }
    planted = [
        (event_file(LANDING, hour(0)), dirty_feeds.issue_lines(hour(0)), 0),
        (event_file(LANDING, hour(1)), dirty_feeds.type_lines(hour(1)), 0),
        (part_file(1, "only_bad"), dirty_feeds.only_bad_lines(hour(1)), 0),
        (event_file(LANDING, hour(2)), dirty_feeds.time_lines(hour(2)), 1),  # a valid last line follows them
    ]
    for path, lines, after in planted:
        first = len(file_lines(path.read_bytes())) - after - len(lines) + 1
        for number, (_, reason) in enumerate(lines, start=first):
            row = quarantined.get((str(path), number))
            assert (row.reason if row else None) == reason, (path.name, number)
    assert quarantined[(str(part_file(1, "empty")), None)].reason == "empty_file"
    issue = {(row.line_number, row.message) for row in quarantined.values() if row.source_file == str(event_file(LANDING, hour(0)))}
    messages = {message.split(": ", 1)[0] for _, message in issue}
    assert {
        'bad_type:quantity="three"', "out_of_range:quantity=99999999999", "out_of_range:quantity=-3",
        "bad_type:quantity=2.5", 'bad_time:event_time="2026-13-45T99:00:00Z"', "null_key:event_id=null",
        "missing_field:item_id", "not_json", "truncated", "empty_line", "not_object",
    } <= messages
    too_long = next(row for row in quarantined.values() if row.reason == "line_too_long")
    assert len(too_long.line) > dirty_feeds.ONE_MB and too_long.message.startswith(
        f"line_too_long: {len(too_long.line.encode())} bytes, more than max_line_bytes = 65536: "
    )


def test_valid_lines_beside_the_defects_are_kept_exactly(first_three_intervals: dict, spark: Any) -> None:
    """The odd but valid lines: kept with their values as written (1e3 is 1000, a +05:00 time the same instant)."""
    kept = {row.event_id: row for row in spark.table(f"{SCHEMA}.int_order_events").collect()}
    assert kept["evt_dirty_07_09"].quantity == 1000 and kept["evt_dirty_07_10"].quantity == 2
    assert kept["evt_dirty_06_08"].event_time == naive(hour(0) + timedelta(minutes=25))
    assert kept["evt_dirty_06_11"].arrival_status == "on_time"
    assert kept["evt_dirty_07_24"].arrival_status == kept["evt_dirty_08_10"].arrival_status == "no_event_time"
    assert kept["evt_dirty_08_11"].event_time == naive(hour(2) + timedelta(minutes=30, seconds=15.5))
    assert kept["evt_dirty_08_12"].line_number == len(event_file(LANDING, hour(2)).read_bytes().splitlines())
    assert {"evt_dirty_07_21", "evt_dirty_08_12"} <= set(kept)
    assert not {event_id for event_id in kept if event_id.startswith("evt_bad_")}, "the generator's own bad lines"


def test_input_accounting_is_exact_per_interval(first_three_intervals: dict, spark: Any) -> None:
    """Lines in = rejected + duplicates + on time + late + early + without time, each as the oracle counts them
    (the accounting suite's own frame, which check_order_windows validated in every run)."""
    events, rejected = landed_lines(arrived(3))
    truth = expected(3)
    for n in range(3):
        files = [p for p in arrived(3) if p.stem.split("_")[1] == f"{hour(n):%Y-%m-%dT%H}"]
        lines = sum(len(file_lines(p.read_bytes())) for p in files)
        valid = [e for e in events if e.arrival_hour == naive(hour(n))]
        by_status = {status: sum(e.arrival_hour == naive(hour(n)) for e in kept) for status, kept in truth.items()}
        counts = _accounting(Checked.interval(Settings.from_environment(), hour(n), hour(n + 1)), spark).first().asDict()
        assert {k: counts[k] for k in ["lines_in", "rejected", "duplicates", *by_status]} == {
            "lines_in": lines,
            "rejected": sum(r.line_number is not None and r.source_file in map(str, files) for r in rejected),
            "duplicates": len(valid) - sum(by_status.values()),
            **by_status,
        }
        assert counts["lines_in"] == counts["accounted"]


def test_price_defects_are_quarantined_and_the_join_uses_what_the_snapshot_prices(first_three_intervals: dict, spark: Any) -> None:
    """The snapshot of hour 0 holds 6 bad lines: each is listed with its reason; the orders of item_02 (priced twice,
    differently) have no price until the next snapshot, the others the price the snapshot gives them."""
    files = sorted((LANDING / "prices").glob("*.jsonl"))
    snapshots, rejected = snapshot_prices(files)
    listed = {(row.source_file, row.line_number): row.reason for row in spark.table(f"{SCHEMA}.fct_rejected_item_prices").collect()}
    assert listed == {(r.source_file, r.line_number): r.reason for r in rejected if r.source_file == str(files[0])}
    assert sorted(listed.values()) == [
        "bad_value:valid_from", "conflicting_record:item_id", "conflicting_record:item_id", "duplicate_record:item_id",
        "not_json", "out_of_range:price",
    ]
    got = {row.event_id: row.price for row in spark.table(f"{SCHEMA}.fct_order_events_priced").collect()}
    assert got == priced(expected(3)["on_time"], snapshots)
    item_02 = [e.event_id for e in expected(3)["on_time"] if e.item_id == "item_02" and e.event_time >= naive(hour(0))]
    assert item_02 and all(got[event_id] is None for event_id in item_02)


def test_microbatch_mode_builds_the_same_windows(
    first_three_intervals: dict, hourly: Any, spark: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The DAG's microbatch mode: interval 2 again, building the window tables' dbt microbatch twins
    (models/order_pipeline/windows_microbatch) for the batches its events can change (--event-time-start
    --event-time-end), checked by the same Great Expectations suites. Each twin holds its insert_overwrite table's
    windows of the day batch built (window_time before midnight UTC: New York's day of November 1 ends at 05:00Z
    on the 2nd, in the next batch), row for row, is_final included (window_tvf.interval_watermark: the twins'
    watermark is the one the insert_overwrite models derive from the interval). The run is also the rerun of
    interval 2 for every other table, which it must leave as it was."""
    monkeypatch.setenv("WINDOW_TVF_WINDOW_MODELS", "microbatch")
    before = {table: contents(spark, table) for table in PIPELINE_TABLES}
    outcome = dag_runs.run_interval(hourly, hour(2))
    assert outcome.failed_tasks == [], outcome
    assert len(outcome.passed_checks) == 10, outcome.passed_checks
    # A rerun of interval 2 for every table but the window tables (the twins stand in for them): the staging,
    # deduplication, routing, price and join tables as they were, row for row.
    unchanged = {table: contents(spark, table) == before[table] for table in PIPELINE_TABLES}
    assert unchanged == {table: True for table in PIPELINE_TABLES}
    differences = {}
    for table in WINDOW_TABLES:
        # the twin's columns: a table stored by hour (fct_user_sessions_10m) has window_hour besides, the twins by date
        columns = ", ".join(spark.table(f"{SCHEMA}.{table}{MICROBATCH_SUFFIX}").columns)
        expected = spark.sql(f"select {columns} from {SCHEMA}.{table} where window_time < '2026-11-02T00:00:00+00:00'")
        twin = spark.sql(f"select {columns} from {SCHEMA}.{table}{MICROBATCH_SUFFIX}")
        differences[table] = (expected.count() > 0, expected.exceptAll(twin).count(), twin.exceptAll(expected).count())
    # New York's first local day here (November 1) ends in the batch of November 2, not built: those twins are empty.
    local = {"fct_item_sales_daily_new_york", "fct_item_sales_month_to_date_new_york"}
    assert differences == {table: (table not in local, 0, 0) for table in WINDOW_TABLES}


def test_the_rejection_gate_fails_above_its_threshold_and_passes_below(
    first_three_intervals: dict, hourly: Any, spark: Any
) -> None:
    """Interval 1 rejects about 5% of its lines: it passed under the default 10% (above), and fails under 2%, in
    build_event_windows, at once (no retries: the same files would fail again), before any window is rebuilt, with
    a message that names the share, the top reasons and sample lines."""
    from window_tvf_pipeline.quality import RejectionGateFailed, gate_event_rejections

    files = [p for p in arrived(2) if p.stem.split("_")[1] == f"{hour(1):%Y-%m-%dT%H}"]
    reasons = Counter(r.reason for r in landed_lines(files)[1])
    rejected = sum(reasons.values()) - reasons["empty_file"]
    lines = sum(len(file_lines(p.read_bytes())) for p in files)
    assert 0.02 < rejected / lines < SETTINGS.max_rejected_share == 0.1
    top = ", ".join(f"{reason} {n}" for reason, n in sorted(reasons.items(), key=lambda item: (-item[1], item[0]))[:5])
    windows = tumble_rows(spark)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("WINDOW_TVF_MAX_REJECTED_SHARE", "0.02")
        outcome = dag_runs.run_interval(hourly, hour(1))
        build = next(task for task in outcome.tasks if task.task_id == "build_event_windows")
        assert outcome.state == "failed" and build.state == "failed" and build.attempts == 1
        # the snapshot of hour 0 (6 bad lines in 67) fails its gate too
        assert set(outcome.failed_tasks) == {
            "build_event_windows", "load_price_snapshots", "build_priced_orders", "check_order_windows"
        }
        with pytest.raises(RejectionGateFailed) as failure:
            gate_event_rejections(hour(1), hour(2), Settings.from_environment())
    assert tumble_rows(spark) == windows
    message = str(failure.value)
    assert message.startswith(
        f"Rejection gate: {rejected} of {lines} event lines that arrived in "
        f"[{hour(1):%Y-%m-%d %H:%M}, {hour(2):%H:%M}) were rejected ({rejected / lines:.1%}), "
        f"more than WINDOW_TVF_MAX_REJECTED_SHARE=0.02.\n  Top reasons: {top}\n"
    )
    assert "\n  Sample lines: events_2026-11-01T07.jsonl line " in message and "docs/dirty_feeds.md" in message
    assert "expect_column_values_to_be_between" in message
    assert gate_event_rejections(hour(1), hour(2), Settings.from_environment()) == ["order_events.rejection_gate"]


# The tables of the event branch (everything but the price snapshots and the join), which interval 3's last run
# rebuilds exactly as its first run did.
PRICE_BRANCH_TABLES = {"stg_item_prices", "fct_rejected_item_prices", "fct_order_events_priced"}
EVENT_BRANCH_TABLES = [table for table in PIPELINE_TABLES if table not in PRICE_BRANCH_TABLES]


@pytest.fixture(scope="module")
def interval_3(first_three_intervals: dict, hourly: Any, spark: Any) -> dict[str, Any]:
    """Interval 3 until the join has its price snapshot: first without it (held back), then with an empty one, then
    with the real one. What each run gave, and the queries of the last (successful) run, which the tests below read:
    the join's waiting, and what every model of a rebuilt interval reads (interval 3's windows were built by the
    first run already, so the last rebuilds them)."""
    from window_tvf_pipeline.spark import last_execution_id, queries_since

    def priced_hours() -> set:
        return {row[0] for row in spark.sql(f"select distinct arrival_hour from {SCHEMA}.fct_order_events_priced").collect()}

    snapshot = price_file(LANDING, hour(3))  # in force from 03:00: interval 3 needs it
    held_back = snapshot.with_suffix(".held")
    snapshot.rename(held_back)
    # Its window checks are left to the last run, which rebuilds the same windows (asserted by
    # test_rerun_of_an_interval_leaves_every_table_identical) and checks them.
    unchecked = [task_id for task_id in hourly.task_ids if task_id != "check_order_windows"]
    seen: dict[str, Any] = {"without": dag_runs.run_interval(hourly, hour(3), only=unchecked),
                            "priced_without": priced_hours()}
    # An empty snapshot lands: it prices nothing, so the rejection gate stops the join until a real one replaces it
    # (the price tasks cleared and run again; the windows stand as the first run built them).
    snapshot.write_bytes(b"")
    seen["empty"] = dag_runs.run_interval(
        hourly, hour(3), only=("wait_for_price_snapshot", "load_price_snapshots", "build_priced_orders"))
    seen["empty_rejects"] = [(row.line_number, row.reason) for row in spark.table(
        f"{SCHEMA}.fct_rejected_item_prices").where(f"source_file = '{snapshot}'").collect()]
    seen["priced_empty"] = priced_hours()
    held_back.rename(snapshot)
    seen["partitions_before"] = partition_count(spark, f"{SCHEMA}.int_order_events")
    seen["before_rerun"] = {table: contents(spark, table) for table in EVENT_BRANCH_TABLES}
    mark = last_execution_id(spark)
    seen["with"] = dag_runs.run_interval(hourly, hour(3))
    seen["queries"] = queries_since(spark, mark)
    seen["after_rerun"] = {table: contents(spark, table) for table in EVENT_BRANCH_TABLES}
    return seen


def test_join_waits_for_the_price_snapshot(interval_3: dict[str, Any], spark: Any) -> None:
    outcome = interval_3["without"]
    assert outcome.state == "failed"
    assert set(outcome.failed_tasks) == {"wait_for_price_snapshot", "load_price_snapshots", "build_priced_orders"}
    assert naive(hour(3)) not in interval_3["priced_without"] and naive(hour(2)) in interval_3["priced_without"]
    outcome = interval_3["empty"]
    assert set(outcome.failed_tasks) == {"load_price_snapshots", "build_priced_orders"}
    load = next(task for task in outcome.tasks if task.task_id == "load_price_snapshots")
    assert load.attempts == 1
    assert interval_3["empty_rejects"] == [(None, "empty_file")]
    assert naive(hour(3)) not in interval_3["priced_empty"]
    assert interval_3["with"].failed_tasks == []
    valid_from = spark.sql(
        f"select distinct price_valid_from from {SCHEMA}.fct_order_events_priced "
        f"where arrival_hour = timestamp'{hour(3).isoformat()}' and event_time >= timestamp'{hour(3).isoformat()}'"
    ).collect()
    assert [row[0] for row in valid_from] == [naive(hour(3))]


def test_a_copy_after_the_ttl_counts_as_a_new_event(interval_3: dict[str, Any], spark: Any) -> None:
    """Interval 3 has run (interval_3): the hour-0 event delivered again in hour 3 is 3 hours past its first
    arrival, more than the 2-hour TTL, so it is kept again (and, 3 hours after its event time, it is late)."""
    truth = expected(4)
    redelivered = json.loads(event_file(LANDING, hour(0)).read_text().splitlines()[0])["event_id"]
    kept = spark.sql(
        f"select arrival_hour, arrival_status from {SCHEMA}.int_order_events where event_id = '{redelivered}'"
    ).collect()
    assert sorted(tuple(row) for row in kept)[-1] == (naive(hour(3)), "late")
    first_line = spark.sql(
        f"select event_id, reason from {SCHEMA}.stg_order_events "
        f"where source_file = '{event_file(LANDING, hour(3))}' and line_number = 1"
    ).first()
    assert (first_line.event_id, first_line.reason) == (
        json.loads(event_file(LANDING, hour(3)).read_bytes()[3:].splitlines()[0])["event_id"], None
    ), "the line after the file's byte order mark is read as it follows"
    by_status = spark.sql(f"select arrival_status, count(*) from {SCHEMA}.int_order_events group by 1").collect()
    assert dict(tuple(row) for row in by_status) == {status: len(events) for status, events in truth.items() if events}


def test_rerun_of_an_interval_leaves_every_table_identical(interval_3: dict[str, Any]) -> None:
    """Interval 3's last run (interval_3) is a rerun of the interval for the event branch, whose tables its first
    run built: every one of them, windows and is_final included, as it was, row for row. The price branch's tables,
    which the snapshot held back changed in between, are rerun unchanged by the microbatch mode's rerun of interval
    2 (test_microbatch_mode_builds_the_same_windows), so every pipeline table is covered once."""
    assert interval_3["with"].failed_tasks == []
    after = interval_3["after_rerun"]
    assert {table: after[table] == rows for table, rows in interval_3["before_rerun"].items()} == {
        table: True for table in EVENT_BRANCH_TABLES
    }
    assert set(EVENT_BRANCH_TABLES) | PRICE_BRANCH_TABLES == set(PIPELINE_TABLES)


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
    "fct_item_sales_cumulate_1h_1d": {"fct_item_sales_tumble_15m": 1, "fct_item_sales_cumulate_1h_1d": 1},
    "fct_item_sales_daily_new_york": {"fct_item_sales_tumble_15m": 1, "fct_item_sales_daily_new_york": 1},
    "fct_item_sales_month_to_date_new_york": {"fct_item_sales_daily_new_york": 1, "fct_item_sales_month_to_date_new_york": 30},
    "fct_top_items_1h": {"int_order_events": 2, "fct_top_items_1h": 1},
    "fct_user_sessions_10m": {"int_order_events": 2, "fct_user_sessions_10m": 3},
    "stg_item_prices": {"text files": None},
    "fct_order_events_priced": {"int_order_events": 1, "stg_item_prices": 2},
}
# Iceberg and Delta Lake also skip data files by their columns' minimum and maximum (file statistics in their
# metadata), where a parquet table's scan reads every partition its partition filter keeps. The copies of a
# model's final windows from its own rewritten partitions read only files that hold a final window: interval 3's
# local-day and month-to-date windows are all changeable (0 files), and of the sessions' 3 rewritten hours one
# holds sessions that ended before the bound (measured on Iceberg 1.10.1 and Delta 4.0.1, 2026-11-29).
SKIPPED_BY_FILE_STATISTICS = {
    "fct_item_sales_daily_new_york": {"fct_item_sales_daily_new_york": 0},
    "fct_item_sales_month_to_date_new_york": {"fct_item_sales_month_to_date_new_york": 0},
    "fct_user_sessions_10m": {"fct_user_sessions_10m": 1},
}
if TABLE_FORMAT != "parquet":
    for _model, _reads in SKIPPED_BY_FILE_STATISTICS.items():
        EXPECTED_READS[_model] = {**EXPECTED_READS[_model], **_reads}
PARTITION_COLUMN = {
    "stg_order_events": "arrival_hour",
    "int_order_events": "arrival_hour",
    "fct_order_events_priced": "arrival_hour",
    "stg_item_prices": "valid_from",
    "int_user_hours": "window_hour",
    "fct_user_sessions_10m": "window_hour",
}


def test_each_model_reads_only_what_its_interval_needs(interval_3: dict[str, Any], spark: Any) -> None:
    """From Spark's executed plans: every scan of a partitioned pipeline table by a model has partition filters on
    its partition column, and reads exactly the partitions its interval needs (arrival hours 00-03 exist; the
    cumulate and the local days read the day's 15-minute windows, one date, never the day's events; the sessions the
    hours from that of the earliest on-time event on); the landing files read are the interval's own. The other
    queries of the run (dbt tests, the rejection gates, the Great Expectations suites with the input accounting)
    filter every partitioned table they scan on its partition column too."""
    assert interval_3["partitions_before"] == 4 and interval_3["with"].failed_tasks == []
    reads: dict[str, dict[str, Any]] = {}
    queries = interval_3["queries"]
    unpruned = [
        (query.execution_id, scan.table)
        for query in queries
        for scan in query.scans
        if partitions_read(spark, scan) is not None
        and PARTITION_COLUMN.get(scan.table.split(".")[-1], "window_date") not in scan.partition_filters
    ]
    assert unpruned == [] and len(queries) > 50
    for query in queries:
        model = (query.written_table or "").split(".")[-1]
        for scan in query.scans if model in EXPECTED_READS else []:
            table = scan.table.split(".")[-1]
            reads.setdefault(model, {})[table] = partitions_read(spark, scan)
            column = PARTITION_COLUMN.get(table, "window_date")
            if reads[model][table] is not None:
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
    # Named columns: a Hive-style table keeps its partition column last, an Iceberg table where the model put it.
    spark.sql(
        f"""
        insert into {table} (window_start, window_end, window_time, item_id, orders, quantity, min_quantity,
            max_quantity, is_final, window_date)
        select timestamp_ntz'{day} 00:07:00', timestamp_ntz'{day} 00:22:00', timestamp'{day} 00:21:59.999',
            'item_99', 1, 1, 1, 1, true, date'{day}'
        """
    )
    check = hourly.get_task("check_order_windows")
    retries, check.retries = check.retries, 0  # the retries would fail the same way, only later
    try:
        # the check cleared and run again over the interval's windows (a rebuild would copy the row as it is)
        outcome = dag_runs.run_interval(hourly, hour(3), only=("check_order_windows",))
        assert outcome.state == "failed" and outcome.failed_tasks == ["check_order_windows"]
        with pytest.raises(QualityCheckFailed) as failure:
            validate_order_windows(hour(3), hour(4))
        message = str(failure.value)
        assert "suite 'order_windows.tumble_15m' failed" in message
        assert "expect_column_values_to_be_in_set({'column': 'start_off_grid', 'value_set': [0]})" in message
        assert "'item_id': 'item_99'" in message and "Data Docs:" in message
        start = SETTINGS.start
        # the sample row as Spark gives it, although the suite was validated in pandas
        assert f"'window_start': datetime.datetime({start.year}, {start.month}, {start.day}, 0, 7)" in message, message
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


def test_a_landing_file_without_its_hour_stops_the_run_naming_it(tmp_path: Path) -> None:
    """A .jsonl file whose name has no arrival hour in the form the staging model reads belongs to no interval: the
    run stops with its name and the form, instead of Spark failing to parse a timestamp; other suffixes (a file
    still being written) are not landed yet."""
    from window_tvf_pipeline.landing import MisnamedLandingFile, event_files

    hour = datetime(2026, 11, 1, 6, tzinfo=timezone.utc)
    (tmp_path / "events").mkdir()
    (tmp_path / "events" / "events_2026-11-01T06_part2.jsonl").write_text("{}\n")
    (tmp_path / "events" / "events_2026-11-01T07.jsonl.tmp").write_text("{}\n")
    assert [p.name for p in event_files(tmp_path, hour, hour + timedelta(hours=1))] == ["events_2026-11-01T06_part2.jsonl"]
    for name in ["events_2026-11-01T6.jsonl", "events_latest.jsonl", "events_2026-11-01.jsonl"]:
        misnamed = tmp_path / "events" / name
        misnamed.write_text("{}\n")
        with pytest.raises(MisnamedLandingFile) as raised:
            event_files(tmp_path, hour, hour + timedelta(hours=1))
        assert str(raised.value) == (
            f"landing file {misnamed}: its name must match ^events_([0-9]{{4}}-[0-9]{{2}}-[0-9]{{2}}T[0-9]{{2}})(?:_[^/]*)?[.]jsonl$ "
            f"(for example events_2026-01-01T03.jsonl), with the hour it arrived in; rename it, or move it out of {misnamed.parent}"
        )
        misnamed.unlink()


def test_the_warm_up_reads_its_own_lines_and_changes_no_table(first_three_intervals: dict, spark: Any) -> None:
    """warm_up runs the staging model's parse over its six lines (both paths, every verdict it documents) and opens
    Great Expectations' context, writing no pipeline table and no landing file an interval reads; a parser that gave
    other verdicts would stop the start, naming them."""
    from window_tvf_pipeline.landing import event_files
    from window_tvf_pipeline.warm_up import warm_up

    def state() -> tuple:
        files = event_files(SETTINGS.landing_dir, SETTINGS.start, SETTINGS.start + timedelta(hours=6))
        return files, spark.sql(f"select count(*), count(distinct arrival_hour) from {SCHEMA}.stg_order_events").first()

    before = state()
    assert warm_up(SETTINGS) > 0
    assert state() == before
