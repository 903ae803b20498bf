"""Table API conveniences: the data tests in the build, the run-operations, and compile-time argument errors."""

from __future__ import annotations

import pytest

from dbt_harness import DbtRun, compile_error, run_dbt
from test_documented_examples import equality_results

DATA_TESTS = {
    "assert_table_api_reference_examples",
    "assert_wide_table_null_handling",
    "assert_temporal_joins",
    "assert_sample_and_split_are_deterministic",
}


def test_table_operation_tests_pass(built: DbtRun) -> None:
    statuses = {name: str(r.status) for name, r in built.results_by_name().items() if name in DATA_TESTS}
    assert statuses == {name: "pass" for name in DATA_TESTS}
    assert equality_results(built)["fct_order_values"] == ("expected_order_values", "pass", 0)


def test_describe_prints_columns_and_types(built: DbtRun) -> None:
    run = run_dbt(["run-operation", "window_tvf.describe", "--args", "{relation: fct_order_values}"])
    assert run.success, run.messages
    assert (
        "window_tvf.fct_order_values\n"
        "  order_id     string\n"
        "  order_time   timestamp\n"
        "  currency     string\n"
        "  amount       int\n"
        "  rate         int\n"
        "  order_value  int"
    ) in run.log


def test_explain_shows_the_asof_join_is_one_sorted_window_not_a_join(built: DbtRun) -> None:
    run = run_dbt(["run-operation", "window_tvf.explain", "--args", "{model: fct_order_values}"])
    assert run.success, run.messages
    plan = next(message for message in run.log if "== Physical Plan ==" in message)
    # The operator tree sits between the header and the first per-operator detail, "(1) Scan ...".
    operators = plan.split("== Physical Plan ==")[1].split("\n(1) ")[0]
    assert "Window" in operators and "Union" in operators
    assert "Join" not in operators


BAD_CALLS = [
    pytest.param("topn(ref('table_api_t'), 0, 'a', ['c'])", "window_tvf.topn: argument 'n' got 0; expected a whole number >= 1", id="topn-zero"),
    pytest.param("topn(ref('table_api_t'), -2, 'a', ['c'])", "window_tvf.topn: argument 'n' got -2; expected a whole number >= 1", id="topn-negative"),
    pytest.param(
        "deduplicate(ref('table_api_t'), none, ['proctime'])",
        "window_tvf.deduplicate: argument 'partition_by' got None; expected the key column name(s)",
        id="dedup-without-keys",
    ),
    pytest.param(
        "fillna(ref('table_api_t'), 1, ['a', 'nope'])",
        """window_tvf.fillna: argument 'columns' got "nope"; no such column; the relation's columns are: id, a, b, c, d, e, proctime""",
        id="fillna-unknown-column",
    ),
    pytest.param(
        "fillna(ref('table_api_t'), 'x', ['a'])",
        """window_tvf.fillna: argument 'value' got "x"; it does not fit column a of type int""",
        id="fillna-value-does-not-fit",
    ),
    pytest.param(
        "fillna(ref('table_api_t'), {'a': 1.5})",
        "window_tvf.fillna: argument 'value' got 1.5; it does not fit column a of type int",
        id="fillna-fraction-into-int",
    ),
    pytest.param(
        "fillna('some_cte', 0)",
        """window_tvf.fillna: argument 'relation' got "some_cte"; this operation reads the relation's columns""",
        id="fillna-needs-a-relation",
    ),
    pytest.param("dropna(ref('table_api_t'), 0)", "window_tvf.dropna: argument 'thresh' got 0; expected a whole number >= 1", id="dropna-zero"),
    pytest.param(
        "dropna(ref('table_api_t'), 3, ['a', 'b'])",
        "window_tvf.dropna: argument 'thresh' got 3; it exceeds the 2 considered columns",
        id="dropna-thresh-above-columns",
    ),
    pytest.param(
        "dropna(ref('table_api_t'), 1, ['a', 'zzz'])",
        """window_tvf.dropna: argument 'columns' got "zzz"; no such column""",
        id="dropna-unknown-column",
    ),
    pytest.param(
        "replace(ref('table_api_t'), {1: 'one'}, ['a'])",
        """window_tvf.replace: argument 'replacement' got {"1": "one"}; value "one" does not fit column a of type int""",
        id="replace-value-does-not-fit",
    ),
    pytest.param(
        "replace(ref('table_api_t'), {1: 3}, ['nope'])",
        """window_tvf.replace: argument 'columns' got "nope"; no such column""",
        id="replace-unknown-column",
    ),
    pytest.param("sample(ref('table_api_t'), 1.5)", "window_tvf.sample: argument 'fraction' got 1.5; expected a number from 0 to 1", id="fraction-above-one"),
    pytest.param("sample(ref('table_api_t'), -0.1)", "window_tvf.sample: argument 'fraction' got -0.1; expected a number from 0 to 1", id="fraction-negative"),
    pytest.param(
        "split(ref('table_api_t'), [0, 0])",
        "window_tvf.split: argument 'weights' got [0, 0]; expected a list of at least two non-negative numbers with a positive sum",
        id="weights-sum-zero",
    ),
    pytest.param(
        "split(ref('table_api_t'), [0.5, -0.5, 1])",
        "window_tvf.split: argument 'weights' got [0.5, -0.5, 1]; expected a list of at least two non-negative numbers",
        id="weights-negative",
    ),
    pytest.param(
        "split_part(ref('table_api_t'), [1, 1, 1], 3)",
        "window_tvf.split_part: argument 'index' got 3; expected 0 to 2 for 3 weights",
        id="split-index-out-of-range",
    ),
    pytest.param(
        "asof_join(ref('orders'), ref('rates_history'), 'order_time', 'rate_time', 'currency', join_type='full')",
        """window_tvf.asof_join: argument 'join_type' got "full"; expected 'left' (keep left rows without a version) or 'inner'""",
        id="asof-join-type",
    ),
    pytest.param(
        "asof_join(ref('orders'), ref('rates_history'), 'order_time', 'rate_time', 'no_key')",
        """window_tvf.asof_join: argument 'on' got "no_key"; no such column""",
        id="asof-unknown-key",
    ),
    pytest.param(
        "asof_join(ref('table_api_t'), ref('table_api_t'), 'proctime', 'proctime', 'id')",
        """window_tvf.asof_join: argument 'right_prefix' got ""; the right column a would be named a, which the left side already has""",
        id="asof-output-name-collision",
    ),
]


@pytest.mark.parametrize("call, message", BAD_CALLS)
def test_bad_arguments_fail_at_compile_time(built: DbtRun, call: str, message: str) -> None:
    assert message in compile_error("{{ window_tvf." + call + " }}")


def test_describe_names_a_missing_relation(built: DbtRun) -> None:
    run = run_dbt(["run-operation", "window_tvf.describe", "--args", "{relation: window_tvf.no_such_table}"])
    assert not run.success
    assert """window_tvf.describe: argument 'relation' got "window_tvf.no_such_table"; no such table or view""" in run.messages
