"""window_tvf.incremental_deduplicate in a project that installs the package: Flink's state-TTL semantics for a
keep-first deduplication at the boundary (exactly the TTL, 1 microsecond less, 1 microsecond more), whether the run
covers everything or one data interval at a time, and reruns.

Expected rows are written by hand from Flink's rules (flink-table-runtime: StateConfigUtil builds the TTL config
with UpdateType.OnCreateAndWrite and NeverReturnExpired; DeduplicateFunctionHelper.processFirstRowOnProcTime writes
the state only when it keeps a row; TtlUtils.expired is `last write + ttl <= now`)."""

from __future__ import annotations

import json
import textwrap
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from dbt_harness import REPO, DbtRun, partition_count, partitions_read, run_dbt

T0 = datetime(2026, 1, 1)
TTL = timedelta(hours=1)
US = timedelta(microseconds=1)
SCHEMA = "throwaway_ttl"

# (key, seen at, copy): the rows as they arrive; `copy` orders rows of one key that arrive at the same time.
ARRIVALS = [
    # within one interval [00:00, 01:00)
    ("ttl_minus_1us", T0, 1),
    ("ttl_minus_1us", T0 + TTL - US, 2),  # 1 us before the state expires: a duplicate
    ("same_time", T0 + timedelta(minutes=5), 2),
    ("same_time", T0 + timedelta(minutes=5), 1),  # same time: order_by keeps copy 1
    (None, T0 + timedelta(minutes=1), 1),  # NULL keys form one key of their own
    (None, T0 + timedelta(minutes=2), 2),
    # across the interval boundary: kept in [00:00, 01:00), seen again in [01:00, 02:00)
    ("exactly_ttl", T0 + timedelta(minutes=30), 1),
    ("exactly_ttl", T0 + timedelta(minutes=30) + TTL, 2),  # state written at 00:30 expires at 01:30: kept again
    ("ttl_plus_1us", T0 + timedelta(minutes=30), 1),
    ("ttl_plus_1us", T0 + timedelta(minutes=30) + TTL + US, 2),
    ("boundary_minus_1us", T0 + timedelta(minutes=30), 1),
    ("boundary_minus_1us", T0 + timedelta(minutes=30) + TTL - US, 2),
    # a dropped duplicate does not extend the key's life (OnCreateAndWrite): the 00:59 sighting is forgotten, the
    # key expires at 01:00 (one hour after it was kept) and the row at 01:00 counts as the first again; that write
    # restarts the TTL, so 01:30 is a duplicate.
    ("no_refresh", T0, 1),
    ("no_refresh", T0 + timedelta(minutes=59), 2),
    ("no_refresh", T0 + TTL, 3),
    ("no_refresh", T0 + TTL + timedelta(minutes=30), 4),
    # kept, kept again exactly one TTL later, then measured from that second keep: 1 us short, then exactly TTL
    ("kept_three_times", T0 + timedelta(minutes=10), 1),
    ("kept_three_times", T0 + timedelta(minutes=10) + TTL, 2),
    ("kept_three_times", T0 + timedelta(minutes=10) + 2 * TTL - US, 3),
    ("kept_three_times", T0 + timedelta(minutes=10) + 2 * TTL, 4),
]
KEPT = {
    ("ttl_minus_1us", T0, 1),
    ("same_time", T0 + timedelta(minutes=5), 1),
    (None, T0 + timedelta(minutes=1), 1),
    ("exactly_ttl", T0 + timedelta(minutes=30), 1),
    ("exactly_ttl", T0 + timedelta(minutes=30) + TTL, 2),
    ("ttl_plus_1us", T0 + timedelta(minutes=30), 1),
    ("ttl_plus_1us", T0 + timedelta(minutes=30) + TTL + US, 2),
    ("boundary_minus_1us", T0 + timedelta(minutes=30), 1),
    ("no_refresh", T0, 1),
    ("no_refresh", T0 + TTL, 3),
    ("kept_three_times", T0 + timedelta(minutes=10), 1),
    ("kept_three_times", T0 + timedelta(minutes=10) + TTL, 2),
    ("kept_three_times", T0 + timedelta(minutes=10) + 2 * TTL, 4),
}


def _literal(value: object) -> str:
    if value is None:
        return "cast(null as string)"
    if isinstance(value, datetime):
        return f"timestamp'{value:%Y-%m-%d %H:%M:%S.%f}Z'"
    return repr(value) if isinstance(value, str) else str(value)


FILES = {
    "dbt_project.yml": """
        name: throwaway_ttl
        version: "1.0.0"
        config-version: 2
        profile: throwaway_ttl
        vars:
          start: null
          end: null
    """,
    "packages.yml": f"""
        packages:
          - local: {REPO}
    """,
    "profiles.yml": f"""
        throwaway_ttl:
          target: embedded
          outputs:
            embedded:
              type: spark
              method: session
              host: localhost
              schema: {SCHEMA}
    """,
    "models/deliveries.sql": "{{ config(materialized='table') }}\nselect * from values\n"
    + ",\n".join(f"    ({', '.join(_literal(v) for v in row)})" for row in ARRIVALS)
    + "\n    as deliveries(message_id, seen_at, copy)\n",
    # The state is the model's own kept rows, partitioned by the arrival time the TTL is measured on.
    "models/first_deliveries.sql": """
        {{ config(materialized='incremental', incremental_strategy='insert_overwrite', partition_by=['seen_at'],
                  file_format=env_var('WINDOW_TVF_TABLE_FORMAT', 'parquet')) }}
        {{ window_tvf.incremental_deduplicate(ref('deliveries'), 'message_id', 'seen_at', '1 hour',
            interval_start=var('start'), interval_end=var('end'), order_by=['copy']) }}
    """,
}


@pytest.fixture(scope="module")
def spark(project_spark: object) -> object:
    """The project's session, opened before the throw-away project's first run (conftest.project_spark)."""
    return project_spark


@pytest.fixture(scope="module")
def project(spark: object, tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("throwaway_ttl")
    for name, text in FILES.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(textwrap.dedent(text))
    for command in (["deps"], ["run", "--select", "deliveries"]):
        outcome = run_dbt(command, root)
        assert outcome.success, outcome.messages
    return root


def deduplicate(project: Path, *args: str, interval: tuple[datetime, datetime] | None = None) -> DbtRun:
    variables = {"start": f"{interval[0]:%Y-%m-%dT%H:%M:%S}Z", "end": f"{interval[1]:%Y-%m-%dT%H:%M:%S}Z"} if interval else {}
    outcome = run_dbt(["run", "--select", "first_deliveries", *args, "--vars", json.dumps(variables)], project)
    assert outcome.success, outcome.messages
    return outcome


def kept(spark: object) -> set[tuple]:
    rows = spark.table(f"{SCHEMA}.first_deliveries").select("message_id", "seen_at", "copy")  # type: ignore[attr-defined]
    return {tuple(row) for row in rows.collect()}


def hour(n: int) -> tuple[datetime, datetime]:
    return T0 + n * TTL, T0 + (n + 1) * TTL


def test_every_row_at_once_follows_flinks_ttl(project: Path, spark: object) -> None:
    deduplicate(project, "--full-refresh")
    assert kept(spark) == KEPT


def test_one_interval_at_a_time_gives_the_same_rows(project: Path, spark: object) -> None:
    deduplicate(project, "--full-refresh", interval=hour(0))
    assert kept(spark) == {row for row in KEPT if row[1] < T0 + TTL}
    for n in (1, 2):
        deduplicate(project, interval=hour(n))
    assert kept(spark) == KEPT


def test_rerunning_an_earlier_interval_changes_nothing(project: Path, spark: object) -> None:
    deduplicate(project, "--full-refresh")
    deduplicate(project, interval=hour(1))
    deduplicate(project, interval=hour(0))
    assert kept(spark) == KEPT


def test_an_incremental_run_reads_only_the_ttl_of_state(project: Path, spark: object) -> None:
    """From Spark's executed plan: the interval [02:00, 03:00) reads, as state, only the model's partitions in
    (02:00 - 1 hour, 02:00), the arrival times of the rows kept then: 01:10, 01:30 and 01:30.000001 (01:00 is
    exactly one TTL back: expired). Everything older stays unread."""
    from window_tvf_pipeline.spark import last_execution_id, queries_since

    deduplicate(project, "--full-refresh", interval=hour(0))
    deduplicate(project, interval=hour(1))
    stored = partition_count(spark, f"{SCHEMA}.first_deliveries")
    mark = last_execution_id(spark)
    deduplicate(project, interval=hour(2))
    scans = [
        scan
        for query in queries_since(spark, mark)
        if query.written_table == f"{SCHEMA}.first_deliveries"
        for scan in query.scans
        if scan.table.endswith("first_deliveries")
    ]
    assert [(partitions_read(spark, scan), "seen_at" in scan.partition_filters) for scan in scans] == [(3, True)]
    assert stored == 9  # 00:00, 00:01, 00:05, 00:10, 00:30, 01:00, 01:10, 01:30, 01:30.000001
