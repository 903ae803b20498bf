"""Window aggregation, Top-N, deduplication, joins, cascades, collect and dynamic sessions, in the real build."""

from __future__ import annotations

import ast
import re

from dbt_harness import EXCLUDED_FROM_BUILD, TABLE_FORMAT, DbtRun, compiled, run_dbt
from test_documented_examples import equality_results

# Example pipeline model -> seed with its hand-checked expected output.
EXAMPLES = {
    "fct_supplier_price_10m": "expected_supplier_price_10m_grouping_sets",
    "fct_supplier_price_1h": "expected_supplier_price_1h_cascaded",
    "fct_top_supplier_10m": "expected_top_supplier_10m",
    "int_first_bid_per_supplier_10m": "expected_first_bid_per_supplier_10m",
    "fct_supplier_sessions_5m": "expected_supplier_sessions_5m",
    "fct_left_right_window_join_5m": "expected_window_join_5m",
    "fct_left_right_window_semi_anti_join_5m": "expected_window_semi_anti_join_5m",
}

DATA_TESTS = {
    "assert_topn_and_dedup_edge_cases",
    "assert_window_aggregate_rollup_cube",
    "assert_cascaded_windows_equal_direct_windows",
    "assert_dynamic_session_gaps",
    "assert_window_semi_anti_join_null_keys",
    "assert_sliced_aggregation_equals_row_assignment",
    "assert_sliced_calendar_aggregation_equals_row_assignment",
    "assert_sliced_distinct_equals_row_assignment",
    "assert_many_windows_per_row",
}


def test_window_operation_examples_equal_expected_tables(built: DbtRun) -> None:
    compared = equality_results(built)
    assert {model: compared.get(model) for model in EXAMPLES} == {
        model: (seed, "pass", 0) for model, seed in EXAMPLES.items()
    }


def test_window_operation_edge_cases_pass(built: DbtRun) -> None:
    expected = DATA_TESTS - set(EXCLUDED_FROM_BUILD)  # the lean run on the oldest Spark leaves some out
    statuses = {name: str(r.status) for name, r in built.results_by_name().items() if name in DATA_TESTS}
    assert statuses == {name: "pass" for name in expected}


def test_window_join_output_columns_follow_the_naming_rule(built: DbtRun, spark) -> None:
    columns = spark.table("window_tvf.fct_left_right_window_join_5m").columns
    assert columns == [
        "join_type", "window_start", "window_end", "window_time", "num",
        "left_row_time", "left_id", "right_row_time", "right_id",
    ]


def test_dynamic_session_rejects_a_gap_that_is_not_positive(built: DbtRun) -> None:
    # Per-row gaps are data, so this check happens when the query runs: the query fails, naming the macro.
    run = run_dbt(["show", "--quiet", "--inline",
                   "with events as (select timestamp'2020-01-01 00:00:00' as t, 0 as gap) "
                   "{{ window_tvf.dynamic_session('events', 't', 'gap') }}"])
    assert not run.success
    assert "window_tvf.dynamic_session: gap_ms must be positive, got 0" in run.messages


def test_mergeable_aggregates_are_sliced_and_others_assign_rows(built: DbtRun) -> None:
    hop = "{'tvf': 'hop', 'timecol': 'bidtime', 'slide': '5 minutes', 'size': '1 hour'}"

    def compiled(aggregates: str, window: str | None = None) -> str:
        run = run_dbt(["compile", "--quiet", "--inline",
                       f"{{{{ window_tvf.window_aggregate(ref('stg_bid'), {window or hop}, 'item', {aggregates}) }}}}"])
        assert run.success, run.messages
        return run.result.results[0].node.compiled_code

    sliced = compiled("{'n': 'count(*)', 'top': 'max(price)', 'mean': 'avg(price)'}")
    assert "group by item, slice_start" in sliced
    # 12 slices per window, 4 partial columns: 11 lead() per column and the slice start, in one shuffle by key
    assert sliced.count("lead(") == 11 * 5 and "distribute by item" in sliced
    for not_mergeable in ["{'items': 'count(distinct item) filter (where price > 1)'}",
                          "{'spread': 'max(price) - min(price)'}", "{'pairs': 'count(distinct item, price)'}"]:
        row_path = compiled(not_mergeable)
        assert "slice_start" not in row_path and "explode(" in row_path
    # count(distinct x): distinct (key, x, slice) rows and running counts over the windows, no row copied
    distinct = compiled("{'items': 'count(distinct item)', 'sketch': 'approx_distinct(item, 10)'}")
    assert "select distinct" in distinct and "stack(2, window_tvf__first, 1" in distinct
    assert "hll_sketch_agg(item, 10)" in distinct and "hll_union_agg(" not in distinct.split("lead(")[0]
    # a tumbling window is one slice: any aggregate, computed whole; window columns and * need the rows
    tumble = "{'tvf': 'tumble', 'timecol': 'bidtime', 'size': '10 minutes'}"
    assert "group by item, slice_start" in compiled("{'prices': 'count(distinct price)'}", tumble)
    for needs_rows in ["{'last': 'max(window_time)'}", "{'rows': 'collect_list(struct(*))'}"]:
        assert "slice_start" not in compiled(needs_rows, tumble)
    # 1 day / 1 hour: 24 slices; 23 x 5 = 115 lead values with 4 partial columns, 23 x 12 = 276 with 11: blocks
    hop = "{'tvf': 'hop', 'timecol': 'bidtime', 'slide': '1 hour', 'size': '1 day'}"
    four = "{'n': 'count(*)', 'low': 'min(price)', 'top': 'max(price)', 'total': 'sum(price)'}"
    assert compiled(four).count("lead(") == 23 * 5
    many = compiled("{" + ", ".join(f"'m{i}': 'max(price + {i})'" for i in range(11)) + "}")
    assert "lead(" not in many and "block_index" in many


def test_windows_align_on_a_session_time_zone_other_than_utc(monkeypatch) -> None:
    # A timestamp column is windowed on the session zone's wall clock (Flink's TIMESTAMP_LTZ), a timestamp_ntz column
    # on its own. In New York 03:00 and 06:00 UTC on 1 January are 22:00 on 31 December and 01:00 on 1 January.
    # Both paths of window_aggregate; window_start is a timestamp_ntz (a wall time) for both column types. The zone's
    # offsets are looked up in a compiled table (Spark's from_utc_timestamp only outside 1970-2100); a timestamp_ntz
    # in a non-UTC session is read with timestampdiff.
    def aggregate(timecol: str, strategy: str) -> str:
        return (f"{{{{ window_tvf.window_aggregate('events', {{'tvf': 'tumble', 'timecol': '{timecol}', "
                f"'size': '1 day'}}, none, {{'v': 'sum(v)'}}, strategy='{strategy}') }}}}")

    paths = {"ltz_slices": aggregate("t", "slices"), "ltz_rows": aggregate("t", "rows"),
             "ntz_slices": aggregate("t_ntz", "slices"), "ntz_rows": aggregate("t_ntz", "rows")}
    sql = (
        "with events as (select * from values "
        "(timestamp'2024-01-01 03:00:00Z', timestamp_ntz'2024-01-01 03:00:00', 1), "
        "(timestamp'2024-01-01 06:00:00Z', timestamp_ntz'2024-01-01 06:00:00', 2) as events(t, t_ntz, v)), "
        + ", ".join(f"{name} as ({call})" for name, call in paths.items())
        + " " + " union all ".join(
            f"select '{name}' as path, cast(window_start as string) as window_start, "
            f"cast(window_end as string) as window_end, typeof(window_start) as type, "
            f"cast(unix_micros(cast(window_time as timestamp)) as string) as window_time, v from {name}" for name in paths)
    )
    # dbt's session method applies the profile's settings to the SparkSession before every query.
    monkeypatch.setenv("WINDOW_TVF_SESSION_TIME_ZONE", "America/New_York")
    run = run_dbt(["show", "--quiet", "--limit", "-1", "--inline", sql])
    assert run.success, run.messages
    compiled = run.result.results[0].node.compiled_code
    assert "timestampdiff(microsecond" in compiled
    assert "from_utc_timestamp(timestamp_micros(unix_micros(cast(source_rows.t as timestamp))), 'America/New_York')" in compiled
    rows = sorted(tuple(row) for row in run.result.results[0].agate_table.rows)
    # window_time of a timestamp: 23:59:59.999 New York time (04:59:59.999 UTC); of a timestamp_ntz: the wall time
    # read as UTC by the cast in this query
    dec_31, jan_1 = "1704085199999000", "1704171599999000"
    assert rows == [
        ("ltz_rows", "2023-12-31 00:00:00", "2024-01-01 00:00:00", "timestamp_ntz", dec_31, 1),
        ("ltz_rows", "2024-01-01 00:00:00", "2024-01-02 00:00:00", "timestamp_ntz", jan_1, 2),
        ("ltz_slices", "2023-12-31 00:00:00", "2024-01-01 00:00:00", "timestamp_ntz", dec_31, 1),
        ("ltz_slices", "2024-01-01 00:00:00", "2024-01-02 00:00:00", "timestamp_ntz", jan_1, 2),
        ("ntz_rows", "2024-01-01 00:00:00", "2024-01-02 00:00:00", "timestamp_ntz", jan_1, 3),
        ("ntz_slices", "2024-01-01 00:00:00", "2024-01-02 00:00:00", "timestamp_ntz", jan_1, 3),
    ]


def test_a_utc_session_reads_epoch_microseconds_with_unix_micros(built: DbtRun) -> None:
    run = run_dbt(["compile", "--quiet", "--inline",
                   "{{ window_tvf.tumble(ref('stg_bid'), 'bidtime', '10 minutes') }}"])
    assert run.success, run.messages
    assert "unix_micros(cast(source_rows.bidtime as timestamp))" in run.result.results[0].node.compiled_code
    assert "timestampdiff" not in run.result.results[0].node.compiled_code


SHUFFLE_SCHEMA = "window_tvf_shuffle"
SHUFFLE_WINDOWS = {
    "hop": "{'tvf': 'hop', 'timecol': 'ts', 'slide': '1 hour', 'size': '4 hours'}",
    "cumulate": "{'tvf': 'cumulate', 'timecol': 'ts', 'step': '1 hour', 'size': '1 day'}",
    "session": "{'tvf': 'session', 'timecol': 'ts', 'gap': '30 minutes', 'partition_by': 'event_key'}",
}
SHUFFLE_AGGREGATES = "{'events': 'count(*)', 'total': 'sum(amount)', 'low': 'min(amount)', 'mean': 'avg(amount)'}"


def write_events(spark, name: str, keys: int) -> None:
    """20,000 events over two days, `keys` keys (0: a key of its own per event), NULL keys and amounts among them."""
    key = "concat('k', id)" if keys == 0 else f"concat('k', pmod(xxhash64(id, 1), {keys}))"
    if not spark.catalog.databaseExists(SHUFFLE_SCHEMA):
        spark.sql(f"create database {SHUFFLE_SCHEMA}")
    spark.sql(f"drop table if exists {SHUFFLE_SCHEMA}.{name}")
    spark.sql(f"""
        create table {SHUFFLE_SCHEMA}.{name} using {TABLE_FORMAT} as
        select
            case when id % 97 = 0 then null else {key} end as event_key,
            timestamp_seconds(1704067200 + pmod(xxhash64(id, 2), 2 * 86400)) as ts,
            case when id % 11 = 0 then null else cast(pmod(xxhash64(id, 3), 1000) as int) - 200 end as amount
        from range(20000)
    """)


def compiled_aggregations(relation: str, prefix: str = "", windows: dict[str, str] = SHUFFLE_WINDOWS,
                          aggregates: str = SHUFFLE_AGGREGATES, **arguments: str) -> tuple[dict[str, str], list[str]]:
    """Each of `windows` aggregated over `relation` (Jinja: a relation or a quoted name), compiled in one dbt
    invocation, each call after `prefix` (a WITH clause defining CTEs); and what dbt logged."""
    extra = "".join(f", {name}={value}" for name, value in arguments.items())
    calls = [f"{prefix}{{{{ window_tvf.window_aggregate({relation}, {window}, 'event_key', {aggregates}{extra}) }}}}"
             for window in windows.values()]
    run = run_dbt(["compile", "--quiet", "--inline", "\n;\n".join(calls)])
    assert run.success, run.messages
    return dict(zip(windows, run.result.results[0].node.compiled_code.split("\n;\n"))), run.log


def table(name: str) -> str:
    return f"api.Relation.create(schema='{SHUFFLE_SCHEMA}', identifier='{name}')"


def test_keys_argument_names_the_slices_shuffle(built: DbtRun) -> None:
    # 'many': the rows shuffled once by key; 'few': partial aggregation first (no distribute by), and a hop's slices
    # copied into their windows instead of read ahead with lead()
    # (a name whose types are unknown when the query compiles: no avg, which would take the row path there)
    unknown = "{'events': 'count(*)', 'total': 'sum(amount)', 'low': 'min(amount)'}"
    (many, _), (few, _) = (compiled_aggregations("'events'", aggregates=unknown, keys="'many'"),
                           compiled_aggregations("'events'", aggregates=unknown, keys="'few'"))
    for kind in SHUFFLE_WINDOWS:
        assert "distribute by event_key" in many[kind] and "distribute by" not in few[kind], kind
    assert "lead(" not in few["hop"] and "group by event_key, window_start_position" in few["hop"]


def test_the_shuffle_follows_the_rows_per_key_and_slice_read_at_compile_time(built: DbtRun, spark) -> None:
    write_events(spark, "two_keys", 2)  # about 100 rows per key and hour in each of two files
    write_events(spark, "own_keys", 0)  # one row per key
    for name, shuffled in [("two_keys", False), ("own_keys", True)]:
        plans, log = compiled_aggregations(table(name))
        assert {kind: "distribute by event_key" in sql for kind, sql in plans.items()} == dict.fromkeys(plans, shuffled)
        # read once per relation, keys and slice length in a model: hop and cumulate share their 1-hour slices
        estimates = [line for line in log if "window_tvf: partial aggregation of" in line]
        assert len(estimates) == 2 and all("20000 rows" in line for line in estimates), estimates


def test_a_name_is_estimated_on_the_relation_it_is_built_on(built: DbtRun, spark) -> None:
    # A schema-qualified table name, a CTE selecting from it (filtered), and a CTE over that CTE get the plan the
    # relation gets, estimated on the table; a CTE that renames the time column cannot be followed and keeps the
    # rows shuffled by key. On two keys the estimate says partials first, on a key per row the rows shuffled.
    write_events(spark, "two_keys", 2)
    write_events(spark, "own_keys", 0)
    for name, shuffled in [("two_keys", False), ("own_keys", True)]:
        qualified = f"{SHUFFLE_SCHEMA}.{name}"
        ctes = (f"with recent as (select * from {qualified} where amount >= 0), "
                f"narrow as (select event_key, ts, amount from recent), "
                f"renamed as (select event_key, ts as event_time, amount from {qualified}) ")
        inputs = {"table name": ("", f"'{qualified}'"), "cte": (ctes, "'recent'"), "cte of a cte": (ctes, "'narrow'")}
        for label, (prefix, relation) in inputs.items():
            plans, log = compiled_aggregations(relation, prefix=prefix)
            assert {kind: "distribute by event_key" in sql for kind, sql in plans.items()} == dict.fromkeys(plans, shuffled), (name, label)
            estimates = [line for line in log if "window_tvf: partial aggregation of" in line]
            assert len(estimates) == 2 and all(name in line and "20000 rows" in line for line in estimates), "\n".join(estimates)
        renamed = {k: v.replace("'ts'", "'event_time'") for k, v in SHUFFLE_WINDOWS.items()}
        plans, log = compiled_aggregations("'renamed'", prefix=ctes, windows=renamed)
        assert all("distribute by event_key" in sql for sql in plans.values()), name
        assert not [line for line in log if "window_tvf: partial aggregation of" in line]
    # in a model's SQL, a CTE over a ref(): estimated on the model (here a seed) it refers to
    run = run_dbt(["compile", "--quiet", "--inline", "with bids as (select * from {{ ref('bid') }} where price > 0) "
                   "{{ window_tvf.window_aggregate('bids', {'tvf': 'hop', 'timecol': 'bidtime', 'slide': '5 minutes', "
                   "'size': '10 minutes'}, 'item', {'total': 'sum(price)'}) }}"])
    assert run.success, run.messages
    assert [line for line in run.log if re.search(r"partial aggregation of \S*bid`? \(which bids reads\) by item", line)], run.log


def test_a_shuffle_chosen_at_compile_time_stays_exact_when_the_keys_change(built: DbtRun, spark) -> None:
    # Compiled on two keys (partials) and run on a key per event, and the other way round: the rows equal the
    # row path's on the data the query runs on.
    for compiled_on, run_on in [(2, 0), (0, 2)]:
        write_events(spark, "changing_keys", compiled_on)
        (plans, _), (reference, _) = (compiled_aggregations(table("changing_keys")),
                                      compiled_aggregations(table("changing_keys"), strategy="'rows'"))
        assert all(("distribute by" in sql) is (compiled_on == 0) for sql in plans.values()), plans
        write_events(spark, "changing_keys", run_on)
        for kind in SHUFFLE_WINDOWS:
            sliced, rows = f"({plans[kind]})", f"({reference[kind]})"
            differences, windows = spark.sql(
                f"select (select count(*) from ({sliced} except all {rows}) as extra) "
                f"+ (select count(*) from ({rows} except all {sliced}) as missing), (select count(*) from {rows} as all_rows)"
            ).first()
            assert differences == 0 and windows > 0, (kind, compiled_on, run_on)


DISTINCT_WINDOWS = {
    "hop_7d": "{'tvf': 'hop', 'timecol': 'ts', 'slide': '1 day', 'size': '7 days', 'time_zone': 'America/New_York'}",
    "hop_2d_offset": "{'tvf': 'hop', 'timecol': 'ts', 'slide': '1 day', 'size': '2 days', 'offset': '6 hours', "
                     "'time_zone': 'America/New_York'}",
    "month_to_date": "{'tvf': 'cumulate', 'timecol': 'ts', 'step': '1 day', 'size': '1 month', "
                     "'time_zone': 'America/New_York'}",
}


def test_distinct_counts_equal_an_independent_model(built: DbtRun, spark) -> None:
    # Rolling distinct users per key over New York's local days, across the month end and the DST change of
    # 2024-03-10, against window_reference.py (Python's zoneinfo, from the definitions) and a set per window: NULL
    # users are not counted, and a window whose users are all NULL exists with 0. Both sliced plans; the HLL
    # estimate (lg_k 12, at most 300 users a window) within 2% of the exact count; and the same estimates from daily
    # sketches kept in a table and rolled up to 7 days (a cascade that reads no event again).
    import random
    from datetime import datetime, timezone

    import window_reference as ref

    generator = random.Random(27)
    start = int(datetime(2024, 2, 24, tzinfo=timezone.utc).timestamp())
    events = [(generator.choice(["a", "b", None]), start + generator.randrange(20 * 86400),
               None if generator.random() < 0.1 else generator.randrange(300)) for _ in range(3000)]
    events.append(("c", int(datetime(2024, 3, 10, 12, tzinfo=timezone.utc).timestamp()), None))  # no user at all
    spark.createDataFrame(events, "event_key string, epoch long, user_id long").selectExpr(
        "event_key", "timestamp_seconds(epoch) as ts", "user_id").createOrReplaceTempView("distinct_events")
    aggregates = "{'users': 'count(distinct user_id)', 'events': 'count(*)', 'approx_users': 'approx_distinct(user_id)'}"
    calls = [f"{{{{ window_tvf.window_aggregate('distinct_events', {window}, 'event_key', {aggregates}, "
             f"strategy='slices', keys='{plan}') }}}}" for window in DISTINCT_WINDOWS.values() for plan in ("few", "many")]
    # the cascade: daily sketches kept in a table, rolled up to 7 days without reading the events again
    daily = ("{'tvf': 'tumble', 'timecol': 'ts', 'size': '1 day', 'time_zone': 'America/New_York'}", "'event_key'",
             "{'user_sketch': 'approx_distinct_sketch(user_id)'}")
    calls.append(f"{{{{ window_tvf.window_aggregate('distinct_events', {', '.join(daily)}) }}}}")
    calls.append("{{ window_tvf.window_aggregate('daily_sketches', {'tvf': 'hop', 'timecol': 'day_time', 'slide': "
                 "'1 day', 'size': '7 days', 'time_zone': 'America/New_York'}, 'event_key', "
                 "{'approx_users': 'approx_distinct_union(user_sketch)'}) }}")
    queries = compiled("\n;\n".join(calls)).split("\n;\n")
    spark.sql(f"create database if not exists {SHUFFLE_SCHEMA}")
    spark.sql(queries[-2]).selectExpr("window_time as day_time", "event_key", "user_sketch").write.mode(
        "overwrite").saveAsTable(f"{SHUFFLE_SCHEMA}.daily_sketches")
    cascaded = spark.sql(queries[-1].replace("daily_sketches", f"{SHUFFLE_SCHEMA}.daily_sketches"))
    direct = spark.sql(queries[0]).select(*cascaded.columns)
    assert cascaded.count() > 50 and cascaded.exceptAll(direct).count() == 0 and direct.exceptAll(cascaded).count() == 0
    for index, (name, window) in enumerate(DISTINCT_WINDOWS.items()):
        spec = ast.literal_eval(window)
        arguments = {key: value for key, value in spec.items() if key not in ("tvf", "timecol", "time_zone")}
        expected: dict[tuple, tuple[set, int]] = {}
        for key, epoch, user in events:
            instant = datetime.fromtimestamp(epoch, timezone.utc)
            for window_start, window_end, _ in ref.window_rows(instant, "America/New_York", spec["tvf"], **arguments):
                users, count = expected.get((window_start, window_end, key), (set(), 0))
                expected[(window_start, window_end, key)] = (users | ({user} - {None}), count + 1)
        model = {window: (len(users), count) for window, (users, count) in expected.items()}
        assert any(users == 0 for users, _ in model.values()) and max(users for users, _ in model.values()) > 50
        for plan, sql in zip(("few", "many"), queries[2 * index:2 * index + 2]):
            rows = spark.sql(sql).collect()
            assert {(r.window_start, r.window_end, r.event_key): (r.users, r.events) for r in rows} == model, (name, plan)
            assert len(rows) == len(model) and all(abs(r.approx_users - r.users) <= 0.02 * r.users for r in rows), (name, plan)


def test_a_sketch_cascade_gives_the_same_rows_on_every_plan(built: DbtRun, spark) -> None:
    # docs/distinct_counts.md's cascade: daily sketches kept in a table with their window columns, rolled up over
    # their window_time by a 7-day hop with approx_distinct_union. The row path windows rows that have window
    # columns already (it failed to compile: "already has a column named window_start"), so every plan gives the
    # rows the sliced path gives: strategy 'rows', 'slices', and 'auto' with a median beside, which does not merge
    # (the row path); on the table and on a view's name (columns unknown when the model compiles). Expected: the
    # exact distinct users per window (sketches of lg_k 14 count 40 users exactly), windows from window_reference.py
    # (New York's days, across the DST change of 2024-03-10).
    import random
    import statistics
    from datetime import datetime, timezone

    import window_reference as ref

    generator = random.Random(40)
    start = int(datetime(2024, 3, 1, tzinfo=timezone.utc).timestamp())
    events = [(start + generator.randrange(16 * 86400), generator.randrange(40)) for _ in range(300)]
    spark.sql(f"create database if not exists {SHUFFLE_SCHEMA}")
    spark.createDataFrame(events, "epoch long, user_id long").selectExpr(
        "timestamp_seconds(epoch) as event_time", "user_id").createOrReplaceTempView("cascade_events")
    daily = ("{{ window_tvf.window_aggregate('cascade_events', {'tvf': 'tumble', 'timecol': 'event_time', 'size': "
             "'1 day', 'time_zone': 'America/New_York'}, none, {'users': 'approx_distinct_sketch(user_id, 14)'}) }}")
    spark.sql(f"drop table if exists {SHUFFLE_SCHEMA}.daily_user_sketches")
    spark.sql(compiled(daily)).write.saveAsTable(f"{SHUFFLE_SCHEMA}.daily_user_sketches")
    spark.table(f"{SHUFFLE_SCHEMA}.daily_user_sketches").createOrReplaceTempView("daily_user_sketches_view")
    week = ("{'tvf': 'hop', 'timecol': 'window_time', 'slide': '1 day', 'size': '7 days', "
            "'time_zone': 'America/New_York'}")
    plans = {"rows": ("{'mau_estimate': 'approx_distinct_union(users)'}", "'rows'"),
             "slices": ("{'mau_estimate': 'approx_distinct_union(users)'}", "'slices'"),
             "auto, a median beside": ("{'mau_estimate': 'approx_distinct_union(users)', "
                                       "'median_day': 'median(hll_sketch_estimate(users))'}", "'auto'")}
    relations = {"table": table("daily_user_sketches"), "view name": "'daily_user_sketches_view'"}
    calls = [f"{{{{ window_tvf.window_aggregate({relation}, {week}, none, {aggregates}, strategy={strategy}) }}}}"
             for relation in relations.values() for aggregates, strategy in plans.values()]
    queries = compiled("\n;\n".join(calls)).split("\n;\n")

    day_users: dict[tuple, set] = {}
    for epoch, user in events:
        (_, _, day_time), = ref.window_rows(datetime.fromtimestamp(epoch, timezone.utc), "America/New_York", "tumble",
                                            size="1 day")
        day_users.setdefault(day_time, set()).add(user)
    expected_users: dict[tuple, set] = {}
    expected_days: dict[tuple, list] = {}
    for day_time, users in day_users.items():
        for window_start, window_end, window_time in ref.window_rows(day_time, "America/New_York", "hop",
                                                                     slide="1 day", size="7 days"):
            window = (window_start, window_end, int(window_time.timestamp() * 1_000_000))
            expected_users[window] = expected_users.get(window, set()) | users
            expected_days.setdefault(window, []).append(len(users))
    expected = {window: len(users) for window, users in expected_users.items()}
    assert len(expected) == 23 and max(expected.values()) == 40 and min(expected.values()) < 40

    for index, query in enumerate(queries):
        relation, plan = list(relations)[index // len(plans)], list(plans)[index % len(plans)]
        assert ("window_tvf__window_start" in query) is (plan != "slices"), (relation, plan)  # the row path
        rows = spark.sql(f"select *, unix_micros(window_time) as window_time_micros from ({query})").collect()
        assert {(r.window_start, r.window_end, r.window_time_micros): r.mau_estimate for r in rows} == expected, (
            relation, plan)
        assert len(rows) == len(expected)
        if plan.startswith("auto"):
            assert {(r.window_start, r.window_end, r.window_time_micros): r.median_day for r in rows} == {
                window: statistics.median(days) for window, days in expected_days.items()}, (relation, plan)
