"""window_aggregate gives the row path's column types on every plan (issue 40, item 5).

Merges widen a decimal sum (a sum of decimal(10,2) slice sums is a decimal(30,2); the hop's + of lead() values one
digit per value), so the type used to follow the plan: the window kind, keys='few' or 'many', the estimate read when
the model compiles. Every plan here is compared with the row path (strategy='rows') column by column, type and value,
for sum, avg, min, max, count, count(distinct x) and approx_distinct over int, bigint, decimal(10,2), decimal(30,10)
and double columns; the row path's types are the ones SQL gives (listed below), and its values are checked against a
Python model on the tumbling and hopping windows. Each input is read as a relation and as a CTE of the statement
(their types read when the model compiles), and as a temporary view's name (types unknown then: read when the query
runs).
"""

from __future__ import annotations

import random
from collections import defaultdict
from datetime import datetime, timedelta, timezone
from decimal import ROUND_HALF_UP, Decimal, localcontext

import pytest

from dbt_harness import TABLE_FORMAT, DbtRun, compile_error, compiled, run_dbt

SCHEMA = "window_tvf_types"
COLUMNS = {"i": "int", "b": "bigint", "d": "decimal(10,2)", "w": "decimal(30,10)", "f": "double"}
# SQL's type of each aggregate over each column type: the row path's, which calls the aggregate itself
SUM_TYPE = {"int": "bigint", "bigint": "bigint", "decimal(10,2)": "decimal(20,2)", "decimal(30,10)": "decimal(38,10)",
            "double": "double"}
AVG_TYPE = {"int": "double", "bigint": "double", "decimal(10,2)": "decimal(14,6)", "decimal(30,10)": "decimal(34,14)",
            "double": "double"}
HOP_15M = "{'tvf': 'hop', 'timecol': 'ts', 'slide': '15 minutes', 'size': '1 hour'}"
WINDOWS = {
    "tumble": "{'tvf': 'tumble', 'timecol': 'ts', 'size': '1 hour'}",
    "hop 1 h / 15 min": HOP_15M,
    "hop 1 day / 1 h": "{'tvf': 'hop', 'timecol': 'ts', 'slide': '1 hour', 'size': '1 day'}",
    "cumulate": "{'tvf': 'cumulate', 'timecol': 'ts', 'step': '1 hour', 'size': '1 day'}",
    "session": "{'tvf': 'session', 'timecol': 'ts', 'gap': '20 minutes', 'partition_by': 'k'}",
}
# the sliced plans of each window: keys='few' (partials before the shuffle), 'many' (rows shuffled by key), none
# (chosen from an estimate when the model compiles); a tumble's slices are its windows
PLANS = {"tumble": ["none"], "hop 1 h / 15 min": ["'few'", "'many'", "none"], "hop 1 day / 1 h": ["'few'", "'many'"],
         "cumulate": ["'few'", "'many'"], "session": ["'few'", "'many'"]}
START = datetime(2024, 3, 1, tzinfo=timezone.utc)


def sliceable(aggregates: dict[str, str], form: str) -> dict[str, str]:
    """`aggregates` without the avgs that cannot be sliced (test below): over a view's name (types unknown when the
    query compiles) or over w, a decimal(30,10), wider than decimal(24,s)."""
    return {name: call for name, call in aggregates.items()
            if not (name.startswith("avg_") and (form == "view name" or call == "avg(w)"))}


def measures(columns: list[str]) -> dict[str, str]:
    calls = {}
    for column in columns:
        calls.update({f"sum_{column}": f"sum({column})", f"avg_{column}": f"avg({column})",
                      f"min_{column}": f"min({column})", f"max_{column}": f"max({column})",
                      f"count_{column}": f"count({column})", f"distinct_{column}": f"count(distinct {column})"})
        if COLUMNS.get(column) in ("int", "bigint"):
            calls[f"approx_{column}"] = f"approx_distinct({column})"
    return calls


def expected_types(columns: dict[str, str]) -> dict[str, str]:
    types = {}
    for column, column_type in columns.items():
        types.update({f"sum_{column}": SUM_TYPE[column_type], f"avg_{column}": AVG_TYPE[column_type],
                      f"min_{column}": column_type, f"max_{column}": column_type, f"count_{column}": "bigint",
                      f"distinct_{column}": "bigint"})
        if column_type in ("int", "bigint"):
            types[f"approx_{column}"] = "bigint"
    return types


def events() -> list[tuple]:
    """600 events over two days on three keys and NULL: NULLs and negatives among the values; doubles in quarters
    (their sums do not depend on the order of the additions); decimal(30,10) values using all ten decimal places."""
    generator = random.Random(405)
    rows = []
    for n in range(600):
        value = generator.randrange(-5000, 20000)
        rows.append((generator.choice(["a", "b", "c", None]), int(START.timestamp()) + generator.randrange(2 * 86400),
                     None if n % 13 == 0 else value, None if n % 17 == 0 else value * 1_000_003,
                     None if n % 11 == 0 else Decimal(value).scaleb(-2),
                     None if n % 19 == 0 else Decimal(value * 1_234_567).scaleb(-10),
                     None if n % 23 == 0 else value / 4))
    return rows


@pytest.fixture(scope="module")
def inputs(built: DbtRun, spark) -> dict[str, str]:
    """The events as a table and a view, and their 15-minute sums (the first step of a cascade), both ways too."""
    spark.sql(f"create database if not exists {SCHEMA}")
    schema = "k string, epoch long, i int, b bigint, d decimal(10,2), w decimal(30,10), f double"
    frame = spark.createDataFrame(events(), schema).selectExpr("k", "timestamp_seconds(epoch) as ts", *COLUMNS)
    spark.sql(f"drop table if exists {SCHEMA}.typed_events")
    frame.write.saveAsTable(f"{SCHEMA}.typed_events")
    spark.table(f"{SCHEMA}.typed_events").createOrReplaceTempView("typed_events_view")
    quarter_hours = compiled("{{ window_tvf.window_aggregate(" + table("typed_events") + ", {'tvf': 'tumble', "
                             "'timecol': 'ts', 'size': '15 minutes'}, 'k', {'d_total': 'sum(d)', 'i_total': "
                             "'sum(i)', 'f_total': 'sum(f)'}) }}")
    spark.sql(f"drop table if exists {SCHEMA}.quarter_hours")
    spark.sql(quarter_hours).write.saveAsTable(f"{SCHEMA}.quarter_hours")
    spark.table(f"{SCHEMA}.quarter_hours").createOrReplaceTempView("quarter_hours_view")
    return {"relation": table("typed_events"), "view name": "'typed_events_view'", "cte name": "'typed_cte'",
            "cascade relation": table("quarter_hours"), "cascade view name": "'quarter_hours_view'",
            "cascade cte name": "'quarter_cte'"}


# CTEs of the compiled statement (as in a model's SQL): their types are read when it compiles (describe query of
# the WITH clause; the comments, with a `with` and a parenthesis in them, do not count)
CTES = ("{# with (a Jinja comment #} -- with (a SQL comment\n"
        f"with typed_cte as (select * from {SCHEMA}.typed_events where k is not null or k is null), "
        f"/* with ( */ quarter_cte as (select * from {SCHEMA}.quarter_hours) ")


def table(name: str) -> str:
    return f"api.Relation.create(schema='{SCHEMA}', identifier='{name}')"


def call(relation: str, window: str, aggregates: dict[str, str], arguments: str) -> str:
    return f"{{{{ window_tvf.window_aggregate({relation}, {window}, 'k', {aggregates!r}, {arguments}) }}}}"


def result(spark, sql: str) -> tuple[dict[str, str], list[tuple]]:
    """The query's column types and its rows in order (window_time as epoch microseconds)."""
    frame = spark.sql(sql)
    types = {field.name: field.dataType.simpleString() for field in frame.schema.fields}
    rows = frame.selectExpr("*", "unix_micros(window_time) as window_time_micros").drop("window_time").collect()
    return types, sorted((tuple(row) for row in rows), key=repr)


@pytest.mark.parametrize("form", ["relation", "view name", "cte name"])
def test_every_plan_gives_the_row_paths_types_and_values(inputs: dict[str, str], spark, form: str) -> None:
    calls, labels = [], []
    prefix = CTES if form == "cte name" else ""
    for window, plans in PLANS.items():
        # on a view's name the types are read when the query runs, after the merges: a decimal(30,10) sum merged
        # by + over four slices (the lead path) fails (test below), so the view's lead path leaves w out
        columns = [c for c in COLUMNS if not (form == "view name" and window == "hop 1 h / 15 min" and c == "w")]
        aggregates = sliceable(measures(columns), form)
        calls.append(call(inputs["relation"], WINDOWS[window], aggregates, "strategy='rows'"))
        labels.append((window, "rows", columns))
        for keys in plans:
            calls.append(prefix + call(inputs[form], WINDOWS[window], aggregates, f"strategy='slices', keys={keys}"))
            labels.append((window, f"keys={keys}", columns))
    # a cascade: the 15-minute sums rolled up to hours
    cascade = sliceable({"sum_d": "sum(d_total)", "avg_d": "avg(d_total)", "sum_i": "sum(i_total)",
                         "avg_i": "avg(i_total)", "sum_f": "sum(f_total)", "max_d": "max(d_total)"}, form)
    window_time_hop = HOP_15M.replace("'ts'", "'window_time'")
    calls.append(call(inputs["cascade relation"], window_time_hop, cascade, "strategy='rows'"))
    labels.append(("cascade", "rows", None))
    for keys in ["'few'", "'many'"]:
        calls.append(prefix + call(inputs["cascade " + form], window_time_hop, cascade, f"strategy='slices', keys={keys}"))
        labels.append(("cascade", f"keys={keys}", None))
    queries = compiled("\n;\n".join(calls)).split("\n;\n")

    reference = {}
    for (window, plan, columns), sql in zip(labels, queries):
        types, rows = result(spark, sql)
        if plan == "rows":
            if window == "cascade":
                expected = {"sum_d": "decimal(30,2)", "avg_d": "decimal(24,6)", "sum_i": "bigint", "avg_i": "double",
                            "sum_f": "double", "max_d": "decimal(20,2)"}
                expected = {name: expected[name] for name in cascade}
            else:
                names = sliceable(measures(columns), form)
                expected = {name: type_ for name, type_ in expected_types({c: COLUMNS[c] for c in columns}).items()
                            if name in names}
            assert {name: types[name] for name in expected} == expected, window
            assert len(rows) > 20, window
            reference[window] = (types, rows)
            continue
        assert (types, rows) == reference[window], (window, plan)
        # a relation's or a CTE's types are read when the query compiles: no cast when it runs
        assert form == "view name" or "window_tvf__typed" not in sql, (window, plan)
        if window == "hop 1 h / 15 min" and plan == "keys='many'" and form == "relation":
            # decimal(38,10) sums merge by block merges here: + would round them
            assert "block_index" in sql and "lead(" not in sql


def test_the_row_path_gives_sqls_values(inputs: dict[str, str], spark) -> None:
    # Tumbling and hopping windows on UTC's clock against a Python model: sums and counts exact, avg as Spark's avg
    # computes it (the sum divided by the count, rounded half up once, at the decimal places of avg's type; double
    # division for int, bigint and double), distinct counts exact, approx_distinct exact at these counts.
    aggregates = measures(list(COLUMNS))
    windows = {"tumble": [(0, 3600)], "hop 1 h / 15 min": [(-2700, 3600), (-1800, 3600), (-900, 3600), (0, 3600)]}
    queries = compiled("\n;\n".join(call(inputs["relation"], WINDOWS[window], aggregates, "strategy='rows'")
                                    for window in windows)).split("\n;\n")
    for (window, offsets), sql in zip(windows.items(), queries):
        groups: dict[tuple, list[tuple]] = defaultdict(list)
        for event in events():
            epoch = event[1]
            for start_offset, size in offsets:
                start = epoch - epoch % 900 + start_offset if window != "tumble" else epoch - epoch % 3600
                if start <= epoch < start + size:
                    groups[(datetime.fromtimestamp(start, timezone.utc).replace(tzinfo=None), event[0])].append(event)
        expected = {}
        for (window_start, key), members in groups.items():
            row = {"window_start": window_start, "window_end": window_start + timedelta(hours=1), "k": key}
            for index, column in enumerate(COLUMNS, start=2):
                values = [member[index] for member in members if member[index] is not None]
                total = sum(values) if values else None
                row.update({f"sum_{column}": total, f"min_{column}": min(values, default=None),
                            f"max_{column}": max(values, default=None), f"count_{column}": len(values),
                            f"distinct_{column}": len(set(values)), f"avg_{column}": average(total, len(values), column)})
                if column in ("i", "b"):
                    row[f"approx_{column}"] = len(set(values))
            expected[(window_start, key)] = row
        rows = spark.sql(sql).drop("window_time").collect()
        assert {(row.window_start, row.k): row.asDict() for row in rows} == expected, window
        assert len(rows) > 100


def average(total, count: int, column: str):
    if total is None:
        return None
    if COLUMNS[column] in ("int", "bigint", "double"):
        return total / count
    scale = Decimal(1).scaleb(-int(AVG_TYPE[COLUMNS[column]].split(",")[1].rstrip(")")))
    with localcontext(prec=80):
        return (Decimal(total) / Decimal(count)).quantize(scale, rounding=ROUND_HALF_UP)


def test_an_avg_slices_only_where_sparks_quotient_can_be_written(inputs: dict[str, str], spark) -> None:
    # Spark's avg rounds its quotient once, at its type's scale; a sliced avg reproduces that with operand types
    # that need the input's types when the query compiles, and a dividend that holds the sum. Over a view's name,
    # and over a decimal(30,10) (sums of 38 digits), strategy='slices' says so; 'auto' takes the row path.
    hop = WINDOWS["hop 1 day / 1 h"]
    for relation, aggregates in [(inputs["view name"], {"mean": "avg(d)"}), (inputs["relation"], {"mean": "avg(w)"})]:
        message = compile_error(call(relation, hop, aggregates, "strategy='slices'"))
        assert "avg merges when the input's types are known when the model compiles" in message, message
        auto, rows = compiled(call(relation, hop, aggregates, "strategy='auto'") + "\n;\n"
                              + call(relation, hop, aggregates, "strategy='rows'")).split("\n;\n")
        assert auto == rows


def test_a_merge_that_would_round_a_decimal_is_not_taken(inputs: dict[str, str], spark) -> None:
    # A decimal(38,10) sum merged by + over four slices (the hop's lead path) would lose decimal places (Spark keeps
    # 6 past precision 38). On a relation the types are known when the model compiles, and block merges (Spark's
    # sum) take their place; on a view's name they are known when the query runs, which fails, naming the way out;
    # keys='few' merges with sum and gives the row path's rows.
    aggregates = {"total": "sum(w)"}
    calls = [call(inputs["relation"], HOP_15M, aggregates, "strategy='rows'"),
             call(inputs["view name"], HOP_15M, aggregates, "strategy='slices', keys='few'"),
             call(inputs["view name"], HOP_15M, aggregates, "strategy='slices', keys='many'")]
    rows, few, many = compiled("\n;\n".join(calls)).split("\n;\n")
    assert result(spark, few) == result(spark, rows)
    assert "lead(" in many
    with pytest.raises(Exception) as failure:
        spark.sql(many).collect()
    assert ("window_tvf.window_aggregate: sum(w) is a decimal(38,10), whose decimal places beyond 6 a merge of 4 "
            "slices by + would round; pass the input as a ref() or source() relation (its types are read when the "
            "model compiles) or keys='few'") in str(failure.value)


def test_an_overflowing_sum_is_null_on_every_plan(inputs: dict[str, str], spark) -> None:
    # dbt-spark's session is not ANSI: a sum out of its type's range is NULL on the row path (Spark's sum), and so
    # on the sliced paths, where the merged value is wider until it is cast (or read, on a view's name) into the
    # row path's type. decimal(38,0) sums of 6e37 + 6e37 overflow; one value alone does not (its avg does, at
    # decimal(38,4): it is NULL on every plan, as Spark's avg gives it).
    spark.sql("""create or replace temp view huge_events as select * from values
        (timestamp'2024-03-01 00:10:00', 'a', cast(6e37 as decimal(38,0))),
        (timestamp'2024-03-01 00:40:00', 'a', cast(6e37 as decimal(38,0))),
        (timestamp'2024-03-01 03:00:00', 'a', cast(6e37 as decimal(38,0))) as t(ts, k, h)""")
    spark.sql(f"drop table if exists {SCHEMA}.huge_events")
    spark.table("huge_events").write.saveAsTable(f"{SCHEMA}.huge_events")
    aggregates = {"total": "sum(h)", "mean": "avg(h)"}
    calls = [call(relation, HOP_15M, aggregates, arguments) for relation in (table("huge_events"), "'huge_events'")
             for arguments in ("strategy='rows'", "keys='few'", "keys='many'")]
    results = [result(spark, sql) for sql in compiled("\n;\n".join(calls)).split("\n;\n")]
    types, rows = results[0]
    assert {name: types[name] for name in ("total", "mean")} == {"total": "decimal(38,0)", "mean": "decimal(38,4)"}
    assert sorted(row[3] is None for row in rows) == [False] * 8 + [True] * 2  # the 2 windows holding both
    assert all(row[4] is None for row in rows)
    assert all(other == results[0] for other in results[1:])


def test_a_sliced_avg_is_sparks_avg_for_every_decimal_scale(inputs: dict[str, str], spark) -> None:
    # Spark's avg rounds its quotient once, at the scale of its type (s + 4); the sliced paths divide with operands
    # cast so that the division rounds there too (scales 0 and 1, below any division's 6, by a shifted count).
    # Thirds and sevenths over 3 keys: quotients that do not end, rounded on both sides of a half.
    types = {"z0": "decimal(12,0)", "z1": "decimal(12,1)", "z2": "decimal(18,2)", "z6": "decimal(20,6)",
             "z9": "decimal(24,9)"}
    values = ", ".join(f"cast(v * {10 ** int(t.split(',')[1].rstrip(')'))} / 7 as {t}) as {name}"
                       for name, t in types.items())
    spark.sql(f"drop table if exists {SCHEMA}.scaled_events")
    spark.sql(f"""create table {SCHEMA}.scaled_events using {TABLE_FORMAT} as
        select concat('k', id % 3) as k, timestamp_seconds(1709251200 + id * 97) as ts, {values}
        from (select id, pmod(xxhash64(id), 2000001) - 1000000 as v from range(900))""")
    aggregates = {f"avg_{name}": f"avg({name})" for name in types} | {f"sum_{name}": f"sum({name})" for name in types}
    hop = {"slices": HOP_15M, "cumulate": WINDOWS["cumulate"]}
    calls = [call(table("scaled_events"), window, aggregates, arguments) for window in hop.values()
             for arguments in ("strategy='rows'", "strategy='slices', keys='few'", "strategy='slices', keys='many'")]
    results = [result(spark, sql) for sql in compiled("\n;\n".join(calls)).split("\n;\n")]
    for window in range(len(hop)):
        reference = results[3 * window]
        assert {name: reference[0][name] for name in ("avg_z0", "avg_z1", "avg_z9")} == {
            "avg_z0": "decimal(16,4)", "avg_z1": "decimal(16,5)", "avg_z9": "decimal(28,13)"}
        assert len(reference[1]) > 50 and results[3 * window + 1] == reference and results[3 * window + 2] == reference


def test_a_value_cast_to_a_type_it_does_not_fit_is_null(built: DbtRun, spark) -> None:
    # On a view's name a merged sum is cast to the row path's type when the query runs (the default of a lag() over
    # one-row partitions takes its value's type). No test data makes a decimal(20,2) sum overflow (it would take
    # 10^10 rows), so the cast itself: out of the type's range it is NULL, as Spark's sum gives in the non-ANSI mode
    # dbt-spark sets on its connections.
    sql = ("select {{ window_tvf._value_as_type_of('merged', 'template') }} as typed from (select 1 as id, "
           "cast('1e25' as decimal(38,2)) as merged, cast(null as decimal(20,2)) as template union all select 2, "
           "cast(12.5 as decimal(38,2)), null) window window_tvf__typed as (partition by id order by id)")
    frame = spark.sql(compiled(sql))
    assert frame.schema["typed"].dataType.simpleString() == "decimal(20,2)"
    assert sorted(frame.collect(), key=repr) == sorted([(None,), (Decimal("12.50"),)], key=repr)
