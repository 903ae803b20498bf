"""Profile: where a tumbling window_aggregate spends the time that Spark's window() does not (issue 40, item 2).

    make bench-tumble          # about 3 minutes: 3 M rows on each of make bench's three key distributions

On the data of `make bench` (bench/window_aggregation.py; generated if missing), each of four queries runs 5 times in
turn and is timed as the median: the macro (window_aggregate, tumble 10 minutes), Spark's `window()`, the floor (a
plain GROUP BY of the key and the slice number), and the macro's own GROUP BY alone (its slice position, without
making the window columns). Then, from the last run of each, Spark's own measurements per operator (the SQL metrics
of the executed plan: each whole-stage-generated stage's duration, the aggregation's build time, the shuffle's
write time and bytes) and the time Spark took to plan the query (analysis and optimization, from the query's
tracker). The table goes to stdout; docs/benchmarks/tumble_profile.md reads it.
"""

from __future__ import annotations

import re
import statistics
import time

from harness import event_table, relation
from window_aggregation import BENCH_DIR, DAYS, QUERIES, SHAPES, SPARK, START, TABLE, compile_inline, floor_sql, native_sql

ROWS, ROUNDS = 3_000_000, 5
TUMBLE = next(query for query in QUERIES if query.name.startswith("tumble"))
# Operator metrics worth reading per node name (Spark 3.5-4.3 spell them so).
METRICS = ("duration", "time in aggregation build", "shuffle write time", "data size", "shuffle bytes written",
           "number of output rows")


def macro_sql() -> str:
    call = (f"{{{{ window_tvf.window_aggregate({relation(TABLE)}, {TUMBLE.window!r}, 'event_key', "
            "{'events': 'count(*)', 'total': 'sum(amount)', 'smallest': 'min(amount)', 'largest': 'max(amount)'}) }}")
    return compile_inline(call, BENCH_DIR / "dbt_logs")


def slices_only_sql(macro: str) -> str:
    """The macro's innermost GROUP BY (keys and slice start) alone: what the macro costs before its window columns."""
    start = macro.index("select", macro.index("from (", macro.index("from (") + 1))
    depth, end = 0, None
    for index in range(start, len(macro)):
        depth += {"(": 1, ")": -1}.get(macro[index], 0)
        if depth < 0:
            end = index
            break
    return macro[start:end]


def run(spark, sql: str) -> tuple[float, int]:
    began = time.perf_counter()
    spark.sql(sql).write.format("noop").mode("overwrite").save()
    store = spark._jsparkSession.sharedState().statusStore()
    return time.perf_counter() - began, store.executionsList(int(store.executionsCount()) - 1, 1).apply(0).executionId()


def operator_metrics(spark, execution_id: int) -> list[tuple[str, dict[str, str]]]:
    store = spark._jsparkSession.sharedState().statusStore()
    nodes, values = store.planGraph(execution_id).allNodes(), store.executionMetrics(execution_id)
    found = []
    for index in range(nodes.size()):
        node, named = nodes.apply(index), {}
        for position in range(node.metrics().size()):
            metric = node.metrics().apply(position)
            value = values.get(metric.accumulatorId())
            if value.isDefined() and metric.name() in METRICS:
                named[metric.name()] = re.sub(r"\s+", " ", value.get()).strip()
        if named:
            found.append((node.name(), named))
    return found


def planning_seconds(spark, sql: str) -> float:
    """Median of 5: parse, analyse and optimize the query and plan it physically, without running it."""
    times = []
    for _ in range(5):
        began = time.perf_counter()
        spark.sql(sql)._jdf.queryExecution().executedPlan()
        times.append(time.perf_counter() - began)
    return statistics.median(times)


def main() -> int:
    spark = SPARK.session()
    print(f"Spark's log: {SPARK.log_file}", flush=True)
    for shape in SHAPES:
        table = event_table(spark, BENCH_DIR / "data", f"{shape.name}_{ROWS}", ROWS, shape.key_sql, START, DAYS, TABLE)
        macro = macro_sql()
        queries: dict[str, str] = {"macro": macro, "native window()": native_sql(table, TUMBLE),
                                   "floor": floor_sql(table, TUMBLE), "macro's GROUP BY alone": slices_only_sql(macro)}
        seconds: dict[str, list[float]] = {name: [] for name in queries}
        last: dict[str, int] = {}
        run(spark, queries["floor"])  # warm-up: JIT and file listing
        for _ in range(ROUNDS):
            for name, sql in queries.items():
                elapsed, last[name] = run(spark, sql)
                seconds[name].append(elapsed)
        native = statistics.median(seconds["native window()"])
        print(f"\n### {shape.label}, {ROWS / 1e6:g} M rows, tumble 10 min (median of {ROUNDS})\n")
        print("| query | s | x native | planning s |\n|---|---|---|---|")
        for name, sql in queries.items():
            median = statistics.median(seconds[name])
            print(f"| {name} | {median:.2f} | {median / native:.2f}x | {planning_seconds(spark, sql):.3f} |")
        for name in queries:
            print(f"\n{name}, Spark's metrics per operator (last run):")
            for node, metrics in operator_metrics(spark, last[name]):
                print(f"  {node}: " + "; ".join(f"{key} {value}" for key, value in metrics.items()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
