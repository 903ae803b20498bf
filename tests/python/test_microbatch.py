"""window_tvf under dbt's microbatch strategy (tests/python/microbatch_project.py): every window kind, in UTC and in
New York across its fall-back night, hourly and daily batches, built batch by batch and over a range, equals the
same aggregation built as a table over all data, for the windows whose window_time lies in the batches built."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

import microbatch_project as project
from dbt_harness import TABLE_FORMAT, partition_count, partitions_read, run_dbt

SCHEMA = project.SCHEMA


def dbt(root: Path, *args: str) -> Any:
    run = run_dbt(list(args), project_dir=root)
    assert run.success, run.messages
    return run


def build_range(root: Path, selector: str, start: str, end: str) -> Any:
    return dbt(root, "run", "--select", selector, "--event-time-start", start, "--event-time-end", end)


def hours(start: str, end: str) -> list[str]:
    from datetime import datetime, timedelta

    first, last = datetime.fromisoformat(start), datetime.fromisoformat(end)
    return [(first + timedelta(hours=n)).isoformat() for n in range(int((last - first).total_seconds() // 3600) + 1)]


EXCLUDED = ["mb_retry_hop_1h_15m"]


@pytest.fixture(scope="module")
def spark(project_spark: Any) -> Any:
    """The project's session, opened before the throw-away project's first run (conftest.project_spark); the
    module needs no build of the main project: make test runs it beside that build, on a worker of its own."""
    return project_spark


@pytest.fixture(scope="module")
def microbatch_project(spark: Any, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The throw-away project, built: full tables, then the hourly microbatch models batch by batch for two hours
    (one `dbt run` each, as an orchestrator passing its data interval does; a session crosses from the second into
    the run after it) and over the remaining range in one run, and the daily ones over their range (the
    month-to-date cascade after the days it windows)."""
    root = project.write(tmp_path_factory.mktemp("microbatch_project"))
    dbt(root, "deps")
    dbt(root, "seed")
    dbt(root, "run", "--select", "stg_events", "full_*")
    first, last = project.HOURLY
    steps = hours(first, last)
    for start, end in zip(steps[:2], steps[1:3]):
        dbt(root, "run", "--select", "mb_*", "plain_hop_1h_15m", "--exclude", *EXCLUDED, "--event-time-start", start,
            "--event-time-end", end)
    dbt(root, "run", "--select", "mb_*", "plain_hop_1h_15m", "--exclude", *EXCLUDED, "--event-time-start", steps[2],
        "--event-time-end", last)
    build_range(root, "mbd_*", *project.DAILY)
    return root


def compare(spark: Any, full: str, built: str, start: str, end: str) -> tuple[int, int, int]:
    """(rows of `full` whose window_time lies in [start, end), of them missing from `built`, rows `built` has beyond)."""
    columns = ", ".join(spark.table(f"{SCHEMA}.{full}").columns)
    expected = spark.sql(f"select {columns} from {SCHEMA}.{full} where window_time >= '{start}' and window_time < '{end}'")
    actual = spark.sql(f"select {columns} from {SCHEMA}.{built}")
    return expected.count(), expected.exceptAll(actual).count(), actual.exceptAll(expected).count()


def all_pairs() -> list[tuple[str, str, tuple[str, str]]]:
    pairs = []
    for case in project.CASES:
        if case.hourly:
            pairs.append((f"full_{case.name}", f"mb_{case.name}", project.HOURLY))
        if case.daily:
            pairs.append((f"full_{case.name}", f"mbd_{case.name}", project.DAILY))
    pairs += [
        ("full_month_to_date_new_york", "mbd_month_to_date_new_york", project.DAILY),
        ("full_hop_tvf", "mb_hop_tvf", project.HOURLY),
        ("full_top_items", "mb_top_items", project.HOURLY),
    ]
    return pairs


def test_every_window_kind_equals_the_full_build(microbatch_project: Path, spark: Any) -> None:
    results = {built: compare(spark, full, built, *window) for full, built, window in all_pairs()}
    assert {built: result[1:] for built, result in results.items()} == {built: (0, 0) for built in results}
    assert all(result[0] > 0 for result in results.values()), results


def test_a_session_across_four_batches_is_one_row(microbatch_project: Path, spark: Any) -> None:
    rows = spark.sql(f"select window_start, window_end, orders from {SCHEMA}.mb_session_10m where user_id = 'u_long'").collect()
    assert [tuple(row) for row in rows] == [
        (project.datetime(2026, 11, 1, 1, 10), project.datetime(2026, 11, 1, 4, 29), 28),
    ]
    hours_spanned = spark.sql(f"select count(distinct date_trunc('HOUR', event_time)) from {SCHEMA}.stg_events "
                              "where user_id = 'u_long'").collect()[0][0]
    assert hours_spanned == 4


def test_batches_add_the_partition_column_of_window_time(microbatch_project: Path, spark: Any) -> None:
    off = spark.sql(f"""
        select count(*) from {SCHEMA}.mb_hop_1h_15m
        where window_hour != timestamp_micros(unix_micros(window_time) - pmod(unix_micros(window_time), 3600000000))
    """).collect()[0][0]
    partitions = partition_count(spark, f"{SCHEMA}.mb_hop_1h_15m")
    daily = spark.sql(f"select count(*) from {SCHEMA}.mbd_session_10m where window_date != to_date(window_time)").collect()[0][0]
    assert (off, partitions, daily) == (0, 8, 0)


def test_plain_dbt_microbatch_cuts_windows_at_the_batch_start(microbatch_project: Path, spark: Any) -> None:
    """Spark's window() over the batch dbt hands over: the same HOP, built the same way, without the package."""
    columns = "window_start, window_end, item_id, orders, users"
    window = project.HOURLY
    expected = spark.sql(f"select {columns} from {SCHEMA}.full_hop_1h_15m "
                         f"where window_time >= '{window[0]}' and window_time < '{window[1]}'")
    plain = spark.sql(f"select {columns} from {SCHEMA}.plain_hop_1h_15m")
    with_package = spark.sql(f"select {columns} from {SCHEMA}.mb_hop_1h_15m")
    keys = ["window_start", "window_end", "item_id"]
    assert expected.exceptAll(with_package).count() == 0
    # 160 windows end in the eight batches (32 per item); plain microbatch gets 113 of them wrong: 109 with too few
    # orders or users (their rows before the batch start were filtered away), 4 missing; and it writes 15 windows
    # ending after the last batch from that batch's rows alone (docs/microbatch.md, "Before and after").
    outcome = (expected.count(), expected.exceptAll(plain).count(), expected.select(*keys).exceptAll(plain.select(*keys)).count(),
               plain.count() - expected.count() + expected.select(*keys).exceptAll(plain.select(*keys)).count())
    assert outcome == (160, 113, 4, 15), outcome


def test_a_batch_reads_only_the_partitions_its_windows_need(microbatch_project: Path, spark: Any) -> None:
    """From Spark's executed plans, batch [05:00, 06:00): the HOP reads event hours 04 and 05 (its windows start at
    04:15 at the earliest), the 15-minute TUMBLE hour 05; the session from the earliest session that can end in the
    batch (04:xx) up to the batch end plus 1 ms, which a session could still reach: hours 04-06. New York's days, in
    batch [03:00, 04:00), which holds the end of October 31 (local): from that day's local midnight (04:00Z on the
    31st) up to the batch end plus the zone's offset spread (05:00Z): the event hours 21-04 that exist. (A batch
    without windows would not do on Spark 3.5: its adaptive plan replaces an empty result by a local relation, and
    the scan leaves the plan that the UI keeps.)"""
    from window_tvf_pipeline.spark import last_execution_id, queries_since

    def reads(selector: str, start: str, end: str) -> dict[str, int]:
        mark = last_execution_id(spark)
        build_range(microbatch_project, selector, start, end)
        read = {}
        for query in queries_since(spark, mark):
            for scan in query.scans:
                if scan.table.endswith("stg_events") and query.written_table:
                    assert "event_hour" in scan.partition_filters, scan
                    read[query.written_table.split(".")[-1]] = partitions_read(spark, scan)
        return read

    # Iceberg and Delta Lake skip data files by their columns' min and max too, not only by partition: hour 06's one
    # file starts after 06:00:00.001 (no event falls on 06:00 itself), so its session scan reads hours 04 and 05 alone.
    session_hours = 3 if TABLE_FORMAT == "parquet" else 2
    assert reads("mb_hop_1h_15m mb_tumble_15m mb_session_10m", "2026-11-01T05:00:00", "2026-11-01T06:00:00") == {
        "mb_hop_1h_15m": 2, "mb_tumble_15m": 1, "mb_session_10m": session_hours}
    assert reads("mb_day_new_york", "2026-11-01T03:00:00", "2026-11-01T04:00:00") == {"mb_day_new_york": 8}


def test_a_failed_batch_and_dbt_retry_give_the_full_build(microbatch_project: Path, spark: Any) -> None:
    spark.sql(f"drop table if exists {SCHEMA}.retry_gate")
    first = run_dbt(["run", "--select", "mb_retry_hop_1h_15m", "--event-time-start", project.HOURLY[0],
                     "--event-time-end", project.HOURLY[1]], project_dir=microbatch_project)
    assert not first.success
    batches = first.result.results[0].batch_results
    assert [start.hour for start, _ in batches.failed] == [3] and len(batches.successful) == 7
    spark.sql(f"create table {SCHEMA}.retry_gate using {TABLE_FORMAT} as select 1 as open")
    retried = run_dbt(["retry"], project_dir=microbatch_project)
    assert retried.success, retried.messages
    assert compare(spark, "full_hop_1h_15m", "mb_retry_hop_1h_15m", *project.HOURLY)[1:] == (0, 0)


@pytest.mark.parametrize(
    "model, message",
    [
        ("wrong_partition", "window_tvf.window_aggregate: model wrong_partition is a microbatch model (batch_size 'hour') "
         "partitioned by [\"window_date\"]: dbt-spark writes a batch with insert_overwrite"),
        ("wrong_event_time", "window_tvf.window_aggregate: model wrong_event_time is a microbatch model (batch_size 'hour') "
         "whose event_time is \"window_start\"; window_tvf assigns each window to the batch holding its window_time"),
        ("wrong_count_window", "window_tvf.count_window: model wrong_count_window is a microbatch model "
         "(incremental_strategy 'microbatch'); a count window numbers every row of its key from the first one"),
    ],
)
def test_mistakes_fail_at_compile_time(microbatch_project: Path, model: str, message: str) -> None:
    run = run_dbt(["run", "--select", model, "--event-time-start", "2026-11-01T01:00:00", "--event-time-end",
                   "2026-11-01T02:00:00"], project_dir=microbatch_project)
    assert not run.success
    assert message in run.messages


def test_warnings_say_what_a_model_gives_up(microbatch_project: Path) -> None:
    """In the first batch of a run only (two batches here): a lookback shorter than the spec's allowed_lateness, and
    a CTE windowed in a batch that holds a ref() dbt filtered to the batch."""
    run = build_range(microbatch_project, "warn_lookback warn_cte", "2026-11-01T01:00:00", "2026-11-01T03:00:00")
    lookback, cte = (
        "window_tvf.window_aggregate: model warn_lookback: lookback 1 x batch_size 'hour' recomputes, in a run without "
        "--event-time-start, the windows of events that arrive at most 1 hour after their event time; allowed_lateness "
        "\"3 hours\" admits events up to 3 hours late, so those that arrive between 1 hour and 3 hours after their "
        "event time never reach their windows. Set lookback to at least 3, or run with --event-time-start/"
        "--event-time-end covering them (`dbt run-operation window_tvf.rebuild_range` prints the range).",
        "window_tvf.window_aggregate: model warn_cte windows the CTE \"events\" in a microbatch batch, and reads "
        "stg_events, which dbt filters to the batch's own range wherever ref()/source() renders it: a CTE built on "
        "that holds only the batch's rows, and windows reaching back across the batch start would lose rows. Pass "
        "the ref() itself to the window macro, or build the CTE on ref(...).render() (the macro then reads what its "
        "windows need from it).",
    )
    assert [sum(warning in line for line in run.log) for warning in (lookback, cte)] == [1, 1], run.messages


@pytest.fixture(scope="module")
def parsed_project(spark: Any, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The same project, never built: rebuild_range reads the manifest (and no table but a session model's)."""
    root = project.write(tmp_path_factory.mktemp("microbatch_parsed"))
    dbt(root, "deps")
    return root


def rebuild_range(root: Path, models: list[str], changed_from: str, changed_to: str) -> list[str]:
    """What `dbt run-operation window_tvf.rebuild_range` printed, line by line."""
    run = dbt(root, "run-operation", "window_tvf.rebuild_range", "--args",
              "{models: [" + ", ".join(models) + "], changed_from: '" + changed_from + "', changed_to: '" + changed_to + "'}")
    return next(message for message in run.log if message.startswith("window_tvf.rebuild_range:")).splitlines()


HEADER = ("window_tvf.rebuild_range: input changed in [2026-11-01T03:00:00+00:00, 2026-11-01T04:00:00+00:00); "
          "windows to rebuild:")
HOP = ("  mb_hop_1h_15m (batch_size hour): window_time from 2026-11-01T02:59:59.999000+00:00 to "
       "2026-11-01T05:00:00+00:00: batches 2026-11-01T02:00:00 to 2026-11-01T05:00:00")
DAY_NEW_YORK = ("  mb_day_new_york (batch_size hour): window_time from 2026-11-01T01:59:59.999000+00:00 to "
                "2026-11-02T05:00:00+00:00: batches 2026-11-01T01:00:00 to 2026-11-02T05:00:00")
RUNS = "{} dbt runs that rebuild them, in this order (a model after the listed models it reads):"


@pytest.mark.parametrize("models, printed", [
    pytest.param(["mb_hop_1h_15m", "mb_day_new_york"], [
        HEADER, HOP, DAY_NEW_YORK, RUNS.format(2),
        "dbt run --select mb_hop_1h_15m --event-time-start 2026-11-01T02:00:00 --event-time-end 2026-11-01T05:00:00",
        "dbt run --select mb_day_new_york --event-time-start 2026-11-01T01:00:00 --event-time-end 2026-11-02T05:00:00",
    ], id="unrelated-models-each-their-own-range"),
    # Listed out of build order: the manifest says the month to date reads the days.
    pytest.param(["mbd_month_to_date_new_york", "mbd_hop_1h_15m", "mbd_day_new_york"], [
        HEADER,
        "  mbd_hop_1h_15m (batch_size day): window_time from 2026-11-01T02:59:59.999000+00:00 to "
        "2026-11-01T05:00:00+00:00: batches 2026-11-01T00:00:00 to 2026-11-02T00:00:00",
        "  mbd_day_new_york (batch_size day): window_time from 2026-11-01T01:59:59.999000+00:00 to "
        "2026-11-02T05:00:00+00:00: batches 2026-11-01T00:00:00 to 2026-11-03T00:00:00",
        "  mbd_month_to_date_new_york (batch_size day; reads mbd_day_new_york: input changed in "
        "[2026-11-01T01:59:59.999000+00:00, 2026-11-02T05:00:00+00:00)): window_time from "
        "2026-11-01T00:59:59.998000+00:00 to 2026-12-03T06:00:00+00:00: batches 2026-11-01T00:00:00 to 2026-12-04T00:00:00",
        RUNS.format(3),
        "dbt run --select mbd_hop_1h_15m --event-time-start 2026-11-01T00:00:00 --event-time-end 2026-11-02T00:00:00",
        "dbt run --select mbd_day_new_york --event-time-start 2026-11-01T00:00:00 --event-time-end 2026-11-03T00:00:00",
        "dbt run --select mbd_month_to_date_new_york --event-time-start 2026-11-01T00:00:00 "
        "--event-time-end 2026-12-04T00:00:00",
    ], id="a-cascade-grows-along-its-chain-only"),
    # cascade_hour_over_view reads mb_tumble_15m through a view that is not listed; the 15-minute tumble and the hop
    # share their batches, so one run.
    pytest.param(["cascade_hour_over_view", "mb_day_new_york", "mb_tumble_15m", "mb_hop_1h_15m"], [
        HEADER, DAY_NEW_YORK,
        "  mb_tumble_15m (batch_size hour): window_time from 2026-11-01T02:59:59.999000+00:00 to "
        "2026-11-01T04:15:00+00:00: batches 2026-11-01T02:00:00 to 2026-11-01T05:00:00",
        "  cascade_hour_over_view (batch_size hour; reads mb_tumble_15m: input changed in "
        "[2026-11-01T02:59:59.999000+00:00, 2026-11-01T04:15:00+00:00)): window_time from "
        "2026-11-01T02:59:59.998000+00:00 to 2026-11-01T05:15:00+00:00: batches 2026-11-01T02:00:00 to 2026-11-01T06:00:00",
        HOP, RUNS.format(3),
        "dbt run --select mb_tumble_15m mb_hop_1h_15m --event-time-start 2026-11-01T02:00:00 "
        "--event-time-end 2026-11-01T05:00:00",
        "dbt run --select cascade_hour_over_view --event-time-start 2026-11-01T02:00:00 --event-time-end 2026-11-01T06:00:00",
        "dbt run --select mb_day_new_york --event-time-start 2026-11-01T01:00:00 --event-time-end 2026-11-02T05:00:00",
    ], id="a-mix-shares-runs-where-batches-agree"),
    pytest.param(["mb_hop_1h_15m"], [
        HEADER, HOP, "dbt run that rebuilds them:",
        "dbt run --select mb_hop_1h_15m --event-time-start 2026-11-01T02:00:00 --event-time-end 2026-11-01T05:00:00",
    ], id="one-model"),
])
def test_rebuild_range_reads_which_model_feeds_which(parsed_project: Path, models: list[str], printed: list[str]) -> None:
    assert rebuild_range(parsed_project, models, "2026-11-01T03:00:00", "2026-11-01T04:00:00") == printed


def test_rebuild_range_returns_the_arguments_of_its_runs(parsed_project: Path) -> None:
    """One run: its two flags (what every call returned when all models got one range); several: each run's."""
    def returned(models: list[str]) -> str:
        run = dbt(parsed_project, "compile", "--quiet", "--inline",
                  "{{ window_tvf.rebuild_range(" + repr(models) + ", '2026-11-01T03:00:00', '2026-11-01T04:00:00') }}")
        return run.result.results[0].node.compiled_code.strip()

    assert returned(["mb_hop_1h_15m"]) == "--event-time-start 2026-11-01T02:00:00 --event-time-end 2026-11-01T05:00:00"
    assert returned(["mb_hop_1h_15m", "mb_day_new_york"]) == str([
        "--select mb_hop_1h_15m --event-time-start 2026-11-01T02:00:00 --event-time-end 2026-11-01T05:00:00",
        "--select mb_day_new_york --event-time-start 2026-11-01T01:00:00 --event-time-end 2026-11-02T05:00:00",
    ])


# The runs rebuild_range prints after CHANGED_HOUR changed, for the models of the test below.
RUNS_AFTER_THE_CHANGE = [
    ("mb_hop_1h_15m mb_session_10m", "2026-11-01T02:00:00", "2026-11-01T05:00:00"),
    ("mb_cumulate_1h_1d", "2026-11-01T02:00:00", "2026-11-02T04:00:00"),
    ("mb_day_new_york", "2026-11-01T01:00:00", "2026-11-02T05:00:00"),
]


def test_rebuild_range_after_an_input_hour_changed(microbatch_project: Path, spark: Any) -> None:
    """One input hour is corrected; the run-operation names the batches whose windows it changes; rebuilding those
    gives the full build's rows again (the full tables rebuilt from the corrected input)."""
    root = microbatch_project
    (root / "seeds" / "events.csv").write_text(project._csv(project.changed_events()))
    models = ["mb_hop_1h_15m", "mb_session_10m", "mb_day_new_york", "mb_cumulate_1h_1d"]
    dbt(root, "seed")
    dbt(root, "run", "--select", "stg_events", *[model.replace("mb_", "full_") for model in models])
    hour = project.CHANGED_HOUR
    printed = rebuild_range(root, models, hour.isoformat(), hour.replace(hour=hour.hour + 1).isoformat())
    runs = [re.fullmatch(r"dbt run --select (.+) --event-time-start (\S+) --event-time-end (\S+)", line).groups()
            for line in printed if line.startswith("dbt run --select")]
    # Each model from 03:00 less its zone's offset spread and 1 ms, to its windows' reach: the HOP to 05:00, the
    # session to the end of the stored session the changed hour touches, New York's and the cumulate's days into the
    # next day (the cumulate's in UTC, a day from 04:00).
    assert runs == RUNS_AFTER_THE_CHANGE, printed
    stale = {model: compare(spark, model.replace("mb_", "full_"), model, *project.HOURLY)[1] for model in models}
    assert all(stale.values()), stale  # the correction changed every model's windows
    for selected, start, end in runs:
        build_range(root, selected, start, min(end, project.HOURLY[1]))
    assert {model: compare(spark, model.replace("mb_", "full_"), model, *project.HOURLY)[1:] for model in models} == {
        model: (0, 0) for model in models
    }
