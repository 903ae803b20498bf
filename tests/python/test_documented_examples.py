"""The documented Flink examples and the hand-checked edge cases, run as one real `dbt build`."""

from __future__ import annotations

import datetime as dt

from dbt_harness import DbtRun, run_dbt
from window_tvf_pipeline.documented_examples import DOCUMENTED_EXAMPLES


EDGE_CASE_TESTS = {
    "assert_tumble_edge_cases",
    "assert_tumble_keeps_timestamp_ntz",
    "assert_hop_edge_cases",
    "assert_cumulate_edge_cases",
    "assert_session_edge_cases",
    "assert_seed_nulls_arrive",
    # dbt unit tests (models/flink_examples/_flink_examples__unit_tests.yml)
    "session_chains_events_exactly_one_gap_apart",
    "hop_repeats_each_row_once_per_window",
}


def _problems(build: DbtRun) -> list[str]:
    return [
        f"{r.node.name}: {r.status} {r.message or ''}"
        for r in build.result.results
        if str(r.status) not in ("success", "pass", "warn")
    ]


def test_build_has_no_errors_or_failures(built: DbtRun) -> None:
    assert _problems(built) == []
    assert built.success, built.messages


def equality_results(build: DbtRun) -> dict[str, tuple[str, str, int]]:
    """Model -> (seed it is compared with, test status, failing rows), for every window_tvf.equality test against a
    seed (Nexmark's compare two models: tests/python/test_nexmark.py)."""
    compared = {}
    for result in build.result.results:
        node = result.node
        if node.resource_type == "test" and getattr(node, "test_metadata", None) and node.test_metadata.name == "equality":
            model = node.attached_node.split(".")[-1]
            expected = next((d.split(".")[-1] for d in node.depends_on.nodes if d.startswith("seed.")), None)
            if expected:
                compared[model] = (expected, str(result.status), result.failures)
    return compared


def test_every_documented_example_equals_flinks_table(built: DbtRun) -> None:
    compared = equality_results(built)
    assert {model: compared.get(model) for model in DOCUMENTED_EXAMPLES} == {
        model: (seed, "pass", 0) for model, seed in DOCUMENTED_EXAMPLES.items()
    }


def test_edge_cases_pass(built: DbtRun) -> None:
    statuses = {name: str(r.status) for name, r in built.results_by_name().items() if name in EDGE_CASE_TESTS}
    assert statuses == {name: "pass" for name in EDGE_CASE_TESTS}


def test_rows_without_time_are_counted_and_stored(built: DbtRun, spark) -> None:
    # Flink drops rows with a NULL time; here a warning test counts them and stores them where users can query them.
    warning = built.results_by_name()["not_null_edge_events_event_time"]
    assert (str(warning.status), warning.failures) == ("warn", 2)
    stored = spark.sql(f"select case_name, event_id from {warning.node.relation_name}").collect()
    assert sorted(tuple(row) for row in stored) == [("session_chain", "s09"), ("tumble_edges", "t09")]


def test_window_columns_have_the_time_columns_type(built: DbtRun, spark) -> None:
    # As Flink types them for a TIMESTAMP_LTZ column: wall-clock bounds (TIMESTAMP), window_time like the column.
    schema = {f.name: f.dataType.simpleString() for f in spark.table("window_tvf.int_bid_hop_5m_10m").schema}
    assert schema == {
        "bidtime": "timestamp",
        "price": "decimal(10,2)",
        "item": "string",
        "window_start": "timestamp_ntz",
        "window_end": "timestamp_ntz",
        "window_time": "timestamp",
    }


def test_equality_reports_each_differing_row(built: DbtRun) -> None:
    # The comparison behind every example test must be able to fail: tumble's rows against hop's expected rows.
    run = run_dbt(["show", "--quiet", "--limit", "-1", "--inline",
                   "{{ window_tvf.rowset_diff(ref('int_bid_tumble_10m'), ref('expected_hop_5m_10m')) }}"])
    assert run.success, run.messages
    rows = {(row["diff"], row["item"], row["window_start"]) for row in run.result.results[0].agate_table}
    t = dt.datetime
    assert rows == {
        ("missing from model", item, t(2020, 4, 15, 8, 5)) for item in "CADBE"
    } | {("missing from model", "F", t(2020, 4, 15, 8, 15))}
