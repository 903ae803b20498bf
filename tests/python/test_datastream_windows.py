"""Flink DataStream count windows and evictors: their data tests in the shared build and bad arguments (the doc's
examples and their tables: test_consumer_project.py)."""

from __future__ import annotations

import pytest

from dbt_harness import DbtRun, compile_error, run_dbt

DATA_TESTS = {
    "assert_count_window_cases",
    "assert_evict_count_cases",
    "assert_evict_time_cases",
    "assert_evict_delta_cases",
}

# Example model -> seed with its hand-derived rows (models/datastream_examples/_datastream_examples__models.yml).
EXAMPLES = {
    "fct_clicks_per_3_clicks_by_user": "expected_clicks_per_3_clicks_by_user",
    "fct_clicks_tumble_30m_last_2_dwell": "expected_clicks_tumble_30m_last_2_dwell",
}


def test_data_tests_pass(built: DbtRun) -> None:
    statuses = {name: (str(r.status), r.failures) for name, r in built.results_by_name().items() if name in DATA_TESTS}
    assert statuses == {name: ("pass", 0) for name in DATA_TESTS}


def test_example_pipeline_equals_expected_rows(built: DbtRun) -> None:
    compared = {}
    for result in built.result.results:
        node = result.node
        if (
            node.resource_type == "test"
            and node.original_file_path.startswith("models/datastream_examples/")
            and getattr(node, "test_metadata", None)
            and node.test_metadata.name == "equality"
        ):
            model = node.attached_node.split(".")[-1]
            expected = next(d.split(".")[-1] for d in node.depends_on.nodes if d.startswith("seed."))
            compared[model] = (expected, str(result.status), result.failures)
    assert compared == {model: (seed, "pass", 0) for model, seed in EXAMPLES.items()}


def test_count_window_adds_two_bigint_columns(built: DbtRun, spark) -> None:
    schema = [(f.name, f.dataType.simpleString()) for f in spark.table("window_tvf.int_clicks_count_window_3_by_user").schema]
    assert schema == [
        ("click_id", "string"),
        ("user_id", "string"),
        ("clicked_at", "timestamp"),
        ("page", "string"),
        ("dwell_seconds", "bigint"),
        ("window_index", "bigint"),
        ("window_row_count", "bigint"),
    ]


def test_evictor_keeps_the_input_columns(built: DbtRun, spark) -> None:
    # evict_count over tumble's output: the same columns in the same order, no helper column.
    schema = [(f.name, f.dataType.simpleString()) for f in spark.table("window_tvf.int_clicks_tumble_30m_last_2_by_user").schema]
    assert schema == [
        ("click_id", "string"),
        ("user_id", "string"),
        ("clicked_at", "timestamp"),
        ("page", "string"),
        ("dwell_seconds", "bigint"),
        ("window_start", "timestamp_ntz"),  # wall-clock bounds (Flink's TIMESTAMP), window_time an instant
        ("window_end", "timestamp_ntz"),
        ("window_time", "timestamp"),
    ]


CLICKS = "ref('stg_datastream_clicks'), 'clicked_at'"
PANES = "ref('int_clicks_tumble_30m_last_2_by_user'), 'clicked_at'"

BAD_CALLS = [
    pytest.param(
        f"count_window({CLICKS}, 0)",
        "window_tvf.count_window: argument 'size' got 0; expected a whole number >= 1",
        id="size-zero",
    ),
    pytest.param(
        f"count_window({CLICKS}, 'three')",
        """window_tvf.count_window: argument 'size' got "three"; expected a whole number >= 1""",
        id="size-not-a-number",
    ),
    pytest.param(
        f"count_window({CLICKS}, 2.5)",
        "window_tvf.count_window: argument 'size' got 2.5; expected a whole number >= 1",
        id="size-not-whole",
    ),
    pytest.param(
        f"count_window({CLICKS}, 3, slide=-1)",
        "window_tvf.count_window: argument 'slide' got -1; expected a whole number >= 1",
        id="slide-negative",
    ),
    pytest.param(
        f"count_window({CLICKS}, 3, slide='2')",
        """window_tvf.count_window: argument 'slide' got "2"; expected a whole number >= 1""",
        id="slide-a-string",
    ),
    pytest.param(
        f"count_window({CLICKS}, 3, emit_incomplete='yes')",
        """window_tvf.count_window: argument 'emit_incomplete' got "yes"; expected true or false""",
        id="emit-incomplete-not-a-boolean",
    ),
    pytest.param(
        f"count_window({CLICKS}, 3, partition_by='user id')",
        """window_tvf.count_window: argument 'partition_by' got "user id"; expected a column name""",
        id="partition-key-not-an-identifier",
    ),
    pytest.param(
        f"count_window({CLICKS}, 3, partition_by=['user_id', 'account_id'])",
        """window_tvf.count_window: argument 'partition_by' got "account_id"; no such column in window_tvf.stg_datastream_clicks""",
        id="unknown-partition-key",
    ),
    pytest.param(
        "count_window(ref('stg_datastream_clicks'), 'page', 3)",
        """window_tvf.count_window: argument 'timecol' got "page"; column is of type string; the time column must be"""
        " a timestamp or timestamp_ntz",
        id="time-column-not-a-timestamp",
    ),
    pytest.param(
        "count_window(ref('stg_datastream_clicks'), 'click_time', 3)",
        """window_tvf.count_window: argument 'timecol' got "click_time"; no such column in window_tvf.stg_datastream_clicks""",
        id="missing-time-column",
    ),
    pytest.param(
        "count_window(ref('int_clicks_count_window_3_by_user'), 'clicked_at', 3)",
        """window_tvf.count_window: argument 'relation' got "window_tvf.int_clicks_count_window_3_by_user"; it already"""
        " has a column named window_index",
        id="count-window-columns-would-repeat",
    ),
    pytest.param(
        f"evict_count({PANES}, 0)",
        "window_tvf.evict_count: argument 'max_count' got 0; expected a whole number >= 1",
        id="max-count-zero",
    ),
    pytest.param(
        f"evict_count({PANES}, 2, window_by=['window_start', 'window end'])",
        """window_tvf.evict_count: argument 'window_by' got "window end"; expected a column name""",
        id="window-by-not-an-identifier",
    ),
    pytest.param(
        "evict_count(ref('int_clicks_count_window_3_by_user'), 'clicked_at', 2)",
        """window_tvf.evict_count: argument 'window_by' got "window_start"; no such column in"""
        " window_tvf.int_clicks_count_window_3_by_user",
        id="default-window-by-on-count-windows",
    ),
    pytest.param(
        f"evict_count({PANES}, 2, window_by=[])",
        "window_tvf.evict_count: argument 'window_by' got []; expected the columns that identify one window pane",
        id="window-by-empty",
    ),
    pytest.param(
        f"evict_time({PANES}, '0 minutes')",
        """window_tvf.evict_time: argument 'keep' got "0 minutes"; it must be a positive duration""",
        id="keep-zero",
    ),
    pytest.param(
        f"evict_time({PANES}, 180)",
        "window_tvf.evict_time: argument 'keep' got 180; expected a duration string",
        id="keep-not-a-string",
    ),
    pytest.param(
        "evict_time(ref('int_clicks_tumble_30m_last_2_by_user'), 'page', '5 minutes')",
        """window_tvf.evict_time: argument 'timecol' got "page"; column is of type string""",
        id="evict-time-column-not-a-timestamp",
    ),
    pytest.param(
        f"evict_delta({PANES}, '  ', 10)",
        """window_tvf.evict_delta: argument 'delta' got "  "; expected a SQL expression over the row's columns and"""
        " last_element",
        id="delta-empty",
    ),
    pytest.param(
        f"evict_delta({PANES}, 'dwell_seconds; drop table clicks', 10)",
        """window_tvf.evict_delta: argument 'delta' got "dwell_seconds; drop table clicks"; expected a SQL"""
        " expression",
        id="delta-with-semicolon",
    ),
    pytest.param(
        f"evict_delta({PANES}, 'last_element.dwell_seconds - dwell_seconds', '10')",
        """window_tvf.evict_delta: argument 'threshold' got "10"; expected a number, such as 10 or 2.5""",
        id="threshold-a-string",
    ),
    pytest.param(
        f"evict_delta({PANES}, 'last_element.dwell_seconds - dwell_seconds', 10, window_by='window start')",
        """window_tvf.evict_delta: argument 'window_by' got "window start"; expected a column name""",
        id="delta-window-by-not-an-identifier",
    ),
]


@pytest.mark.parametrize("call, message", BAD_CALLS)
def test_bad_arguments_fail_at_compile_time(built: DbtRun, call: str, message: str) -> None:
    assert message in compile_error("{{ window_tvf." + call + " }}")


def test_good_calls_compile(built: DbtRun) -> None:
    # The counterpart of the cases above: the same macros with valid arguments compile (and run) on the same tables.
    calls = [
        f"count_window({CLICKS}, 3, slide=2, partition_by='user_id', emit_incomplete=true)",
        f"evict_time({PANES}, '5 minutes', window_by=['window_start', 'window_end', 'user_id'])",
        f"evict_delta({PANES}, 'last_element.dwell_seconds - dwell_seconds', 10.5)",
    ]
    for call in calls:
        run = run_dbt(["show", "--quiet", "--limit", "1", "--inline", "{{ window_tvf." + call + " }}"])
        assert run.success, (call, run.messages)
