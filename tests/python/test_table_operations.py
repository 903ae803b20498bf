"""Table API conveniences: the data tests in the build, the run-operations, and compile-time argument errors."""

from __future__ import annotations

from datetime import datetime

import pytest

from dbt_harness import DbtRun, compile_error_line, compiled, run_dbt
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


T_COLUMNS = "id, a, b, c, d, e, proctime"
ORDERS = "order_id, order_time, amount, currency"
RATES = "rate_time, currency, rate"
WHOLE_FROM_1 = "expected a whole number >= 1 (and at most 9223372036854775807, bigint's maximum)"
WEIGHTS = "expected a list of at least two non-negative numbers with a positive sum, e.g. [0.8, 0.1, 0.1]"
ASOF = "asof_join(ref('orders'), ref('rates_history'), "


def _unknown(macro: str, argument: str, name: str, relation: str, columns: str) -> str:
    return f"""window_tvf.{macro}: argument '{argument}' got "{name}"; no such column in window_tvf.{relation}; its columns are: {columns}"""


def test_temporal_join_tie_rules(built: DbtRun, spark) -> None:
    """Versions at one time resolve to the largest whole right row; a NULL-time version is never valid for asof_join
    and is the oldest for latest_version_join (so Yen, whose versions all lack a time, still matches there)."""
    orders = ("with orders as (select * from values ('o1', timestamp'2020-04-15 09:30:00', 'Euro'), "
              "('o2', timestamp'2020-04-15 10:30:00', 'Euro'), ('o3', timestamp'2020-04-15 10:00:00', 'Yen') "
              "as t(order_id, order_time, currency)) ")
    joins = {
        "asof": "asof_join('orders', ref('rates_with_ties'), 'order_time', 'rate_time', 'currency')",
        "latest": "latest_version_join('orders', ref('rates_with_ties'), 'rate_time', 'currency')",
    }
    joined = {
        name: sorted(map(tuple, spark.sql(compiled(f"{orders} select order_id, rate_time, rate from ({{{{ window_tvf.{call} }}}})")).collect()))
        for name, call in joins.items()
    }
    assert joined == {
        "asof": [("o1", datetime(2020, 4, 15, 9, 0), 120), ("o2", datetime(2020, 4, 15, 10, 0), 110), ("o3", None, None)],
        "latest": [("o1", datetime(2020, 4, 15, 10, 0), 110), ("o2", datetime(2020, 4, 15, 10, 0), 110), ("o3", None, 3)],
    }


BAD_CALLS = [
    pytest.param("topn(ref('table_api_t'), 0, 'a', ['c'])", f"window_tvf.topn: argument 'n' got 0; {WHOLE_FROM_1}", id="topn-zero"),
    pytest.param("topn(ref('table_api_t'), -2, 'a', ['c'])", f"window_tvf.topn: argument 'n' got -2; {WHOLE_FROM_1}", id="topn-negative"),
    pytest.param(
        "deduplicate(ref('table_api_t'), none, ['proctime'])",
        "window_tvf.deduplicate: argument 'partition_by' got None; expected the key column name(s)",
        id="dedup-without-keys",
    ),
    pytest.param(
        "fillna(ref('table_api_t'), 1, ['a', 'nope'])",
        f"""window_tvf.fillna: argument 'columns' got "nope"; no such column in window_tvf.table_api_t; its columns are: {T_COLUMNS}""",
        id="fillna-unknown-column",
    ),
    pytest.param(
        "fillna(ref('table_api_t'), 'x', ['a'])",
        """window_tvf.fillna: argument 'value' got "x"; it does not fit column a of type int (int holds whole numbers """
        "from -2147483648 to 2147483647)",
        id="fillna-value-does-not-fit",
    ),
    pytest.param(
        "fillna(ref('table_api_t'), {'a': 1.5})",
        "window_tvf.fillna: argument 'value' got 1.5; it does not fit column a of type int (int holds whole numbers "
        "from -2147483648 to 2147483647)",
        id="fillna-fraction-into-int",
    ),
    pytest.param(
        "fillna('some_cte', 0)",
        """window_tvf.fillna: argument 'relation' got "some_cte"; this operation reads the relation's columns and types """
        "from the warehouse, so it needs a ref()/source() relation that exists (a CTE name cannot be read)",
        id="fillna-needs-a-relation",
    ),
    pytest.param("dropna(ref('table_api_t'), 0)", f"window_tvf.dropna: argument 'thresh' got 0; {WHOLE_FROM_1}", id="dropna-zero"),
    pytest.param(
        "dropna(ref('table_api_t'), 3, ['a', 'b'])",
        "window_tvf.dropna: argument 'thresh' got 3; it exceeds the 2 considered columns, so every row would be dropped",
        id="dropna-thresh-above-columns",
    ),
    pytest.param(
        "dropna(ref('table_api_t'), 1, ['a', 'zzz'])",
        f"""window_tvf.dropna: argument 'columns' got "zzz"; no such column in window_tvf.table_api_t; its columns are: {T_COLUMNS}""",
        id="dropna-unknown-column",
    ),
    pytest.param(
        "replace(ref('table_api_t'), {1: 'one'}, ['a'])",
        """window_tvf.replace: argument 'replacement' got {"1": "one"}; value "one" does not fit column a of type int """
        "(int holds whole numbers from -2147483648 to 2147483647)",
        id="replace-value-does-not-fit",
    ),
    pytest.param(
        "replace(ref('table_api_t'), {1: 3}, ['nope'])",
        f"""window_tvf.replace: argument 'columns' got "nope"; no such column in window_tvf.table_api_t; its columns are: {T_COLUMNS}""",
        id="replace-unknown-column",
    ),
    pytest.param("sample(ref('table_api_t'), 1.5)", "window_tvf.sample: argument 'fraction' got 1.5; expected a number from 0 to 1", id="fraction-above-one"),
    pytest.param("sample(ref('table_api_t'), -0.1)", "window_tvf.sample: argument 'fraction' got -0.1; expected a number from 0 to 1", id="fraction-negative"),
    pytest.param(
        "split(ref('table_api_t'), [0, 0])",
        f"window_tvf.split: argument 'weights' got [0, 0]; {WEIGHTS}",
        id="weights-sum-zero",
    ),
    pytest.param(
        "split(ref('table_api_t'), [0.5, -0.5, 1])",
        f"window_tvf.split: argument 'weights' got [0.5, -0.5, 1]; {WEIGHTS}",
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
        f"""window_tvf.asof_join: argument 'on' got "no_key"; no such column in window_tvf.orders; its columns are: {ORDERS}""",
        id="asof-unknown-key",
    ),
    pytest.param(
        "asof_join(ref('table_api_t'), ref('table_api_t'), 'proctime', 'proctime', 'id')",
        """window_tvf.asof_join: argument 'right_prefix' got ""; the right column a would be named a, which the left side """
        "already has; pass a right_prefix such as 'right_'",
        id="asof-output-name-collision",
    ),
]


# Every column argument of every Table API macro, checked against a ref()/source() relation's columns.
UNKNOWN_COLUMNS = [
    pytest.param("deduplicate(ref('table_api_t'), ['a', 'nope'], ['proctime'])",
                 _unknown("deduplicate", "partition_by", "nope", "table_api_t", T_COLUMNS), id="dedup-partition-by"),
    pytest.param("deduplicate(ref('table_api_t'), 'a', ['nope asc nulls last'])",
                 _unknown("deduplicate", "order_by", "nope", "table_api_t", T_COLUMNS), id="dedup-order-by"),
    pytest.param("topn(ref('table_api_t'), 2, 'nope', ['c'])",
                 _unknown("topn", "partition_by", "nope", "table_api_t", T_COLUMNS), id="topn-partition-by"),
    pytest.param("topn(ref('table_api_t'), 2, 'a', ['c', '`No pe` desc'])",
                 _unknown("topn", "order_by", "`No pe`", "table_api_t", T_COLUMNS), id="topn-order-by-quoted"),
    pytest.param("topn(ref('table_api_t'), 2, 'a', ['c'], rank_column='B')",
                 """window_tvf.topn: argument 'rank_column' got "B"; window_tvf.table_api_t already has a column of that """
                 "name, which the output would repeat; pick another name", id="topn-rank-column-exists"),
    pytest.param("sample(ref('table_api_t'), 0.5, key_columns=['a', 'nope'])",
                 _unknown("sample", "key_columns", "nope", "table_api_t", T_COLUMNS), id="sample-key-columns"),
    pytest.param("split(ref('table_api_t'), [1, 1], key_columns='nope')",
                 _unknown("split", "key_columns", "nope", "table_api_t", T_COLUMNS), id="split-key-columns"),
    pytest.param("split_part(ref('table_api_t'), [1, 1], 0, key_columns='nope')",
                 _unknown("split_part", "key_columns", "nope", "table_api_t", T_COLUMNS), id="split-part-key-columns"),
    pytest.param(ASOF + "'nope', 'rate_time', 'currency')",
                 _unknown("asof_join", "left_time", "nope", "orders", ORDERS), id="asof-left-time"),
    pytest.param(ASOF + "'order_time', 'nope', 'currency')",
                 _unknown("asof_join", "right_time", "nope", "rates_history", RATES), id="asof-right-time"),
    pytest.param(ASOF + "'order_time', 'rate_time', 'rate')",
                 _unknown("asof_join", "on", "rate", "orders", ORDERS), id="asof-left-key"),
    pytest.param(ASOF + "'order_time', 'rate_time', [['currency', 'nope']])",
                 _unknown("asof_join", "on", "nope", "rates_history", RATES), id="asof-right-key"),
    pytest.param("latest_version_join(ref('orders'), ref('rates_history'), 'rate_time', [['nope', 'currency']])",
                 _unknown("latest_version_join", "on", "nope", "orders", ORDERS), id="latest-left-key"),
    pytest.param("latest_version_join(ref('orders'), ref('rates_history'), 'order_time', 'currency')",
                 _unknown("latest_version_join", "right_time", "order_time", "rates_history", RATES), id="latest-right-time"),
    pytest.param("fillna(ref('table_api_t'), {'nope': 1})",
                 _unknown("fillna", "value", "nope", "table_api_t", T_COLUMNS), id="fillna-dict-column"),
    # Columns compared across the two sides must be of one kind of type, or Spark compares them after a cast.
    pytest.param(ASOF + "'order_time', 'rate_time', [['amount', 'currency']])",
                 """window_tvf.asof_join: argument 'on' got "currency"; the left column amount is int and the right column """
                 "currency is string; Spark would compare them only after an implicit cast, so cast one side to the other's "
                 "type first", id="asof-key-types"),
    pytest.param(ASOF + "'order_time', 'currency', 'currency')",
                 """window_tvf.asof_join: argument 'right_time' got "currency"; the left column order_time is timestamp and """
                 "the right column currency is string; Spark would compare them only after an implicit cast, so cast one "
                 "side to the other's type first", id="asof-time-types"),
    pytest.param("latest_version_join(ref('orders'), ref('rates_history'), 'rate_time', [['amount', 'currency']])",
                 """window_tvf.latest_version_join: argument 'on' got "currency"; the left column amount is int and the """
                 "right column currency is string; Spark would compare them only after an implicit cast, so cast one side "
                 "to the other's type first", id="latest-key-types"),
]


@pytest.mark.parametrize("call, message", BAD_CALLS + UNKNOWN_COLUMNS)
def test_bad_arguments_fail_at_compile_time(built: DbtRun, call: str, message: str) -> None:
    assert compile_error_line("{{ window_tvf." + call + " }}") == message


def test_column_arguments_on_a_cte_are_checked_when_it_can_be_described(built: DbtRun) -> None:
    # A CTE of the statement is described when it compiles (its WITH clause, analysis only): a column that is not
    # there is named then. One over a relation the warehouse does not have (yet) is not described: the macros
    # compile, and Spark names the column when the query runs (documented in the README).
    line = compile_error_line("with t as (select 1 as a) {{ window_tvf.topn('t', 1, 'nope', ['nope_either']) }}")
    assert line.startswith("window_tvf.topn:") and "nope" in line, line
    sql = compiled("with t as (select * from window_tvf.no_such_table) "
                   "{{ window_tvf.topn('t', 1, 'nope', ['nope_either']) }}")
    assert "partition by ranked_row.nope" in sql and "order by ranked_row.nope_either asc" in sql


def test_describe_names_a_missing_relation(built: DbtRun) -> None:
    run = run_dbt(["run-operation", "window_tvf.describe", "--args", "{relation: window_tvf.no_such_table}"])
    assert not run.success
    assert """window_tvf.describe: argument 'relation' got "window_tvf.no_such_table"; no such table or view""" in run.messages
