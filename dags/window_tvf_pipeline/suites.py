"""The expectation suites, as code: window invariants of every window table, a recount of the tumble windows, and
input accounting (events in = events windowed + events without time + late events + duplicates)."""

from __future__ import annotations

from typing import Any

import great_expectations.expectations as gxe

from window_tvf_pipeline.config import dbt_schema
from window_tvf_pipeline.documented_examples import DOCUMENTED_EXAMPLES
from window_tvf_pipeline.quality import Suite

MINUTE = 60_000_000
HOUR = 60 * MINUTE
DAY = 24 * HOUR
WINDOW_TIME_BEFORE_END = 1000  # window_time = window_end - 1 ms, in microseconds


def _table(spark: Any, name: str) -> Any:
    return spark.table(f"{dbt_schema()}.{name}")


def _with_window_micros(frame: Any, period: int | None = None) -> Any:
    """Adds what the invariants read: the window's length, window_end - window_time, and (for aligned windows)
    window_start's distance from the grid of `period` (UTC epoch-aligned, offset 0)."""
    from pyspark.sql import functions as F

    frame = frame.withColumn("window_micros", F.unix_micros("window_end") - F.unix_micros("window_start"))
    frame = frame.withColumn("end_minus_window_time", F.unix_micros("window_end") - F.unix_micros("window_time"))
    if period is None:
        return frame
    return frame.withColumn("start_off_grid", F.pmod(F.unix_micros("window_start"), F.lit(period)))


def _aligned_window_expectations(sizes: list[int]) -> list[Any]:
    return [
        gxe.ExpectColumnValuesToBeInSet(column="window_micros", value_set=sizes),
        gxe.ExpectColumnValuesToBeInSet(column="end_minus_window_time", value_set=[WINDOW_TIME_BEFORE_END]),
        gxe.ExpectColumnValuesToBeInSet(column="start_off_grid", value_set=[0]),
        gxe.ExpectColumnValuesToBeBetween(column="orders", min_value=1),
        gxe.ExpectCompoundColumnsToBeUnique(column_list=["window_start", "window_end", "item_id"]),
    ]


def _tumble_with_recount(spark: Any) -> Any:
    """The tumble table beside an independent recount of on-time events per 15-minute bucket and item: every event
    is counted exactly once, in the right window."""
    from pyspark.sql import functions as F

    events = _table(spark, "int_order_events").where("arrival_status = 'on_time'")
    recount = (
        events.withColumn(
            "window_start",
            F.timestamp_micros(F.unix_micros("event_time") - F.pmod(F.unix_micros("event_time"), F.lit(15 * MINUTE))),
        )
        .groupBy("window_start", "item_id")
        .agg(F.count("*").alias("recounted_orders"))
    )
    windows = _with_window_micros(_table(spark, "fct_item_sales_tumble_15m"), 15 * MINUTE)
    return windows.join(recount, ["window_start", "item_id"], "full_outer")


def _sessions(spark: Any) -> Any:
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    by_user = Window.partitionBy("user_id").orderBy("window_start")
    return (
        _with_window_micros(_table(spark, "fct_user_sessions_10m"))
        .withColumn("end_minus_last_event", F.unix_micros("window_end") - F.unix_micros("last_event_time"))
        .withColumn("after_previous_session", F.unix_micros("window_start") - F.lag(F.unix_micros("window_end")).over(by_user))
    )


def _accounting(spark: Any) -> Any:
    """One row: every count the accounting identities compare. Counted first, then made a DataFrame: Spark 4.3
    fails with an internal error when GX filters one query that holds these scalar subqueries."""
    schema = dbt_schema()
    on_time = f"{schema}.int_order_events where arrival_status = 'on_time'"
    queries = {
        "events_in": f"select count(*) from {schema}.stg_order_events",
        "deduplicated": f"select count(*) from {schema}.int_order_events",
        "late_events": f"select count(*) from {schema}.fct_late_order_events",
        "events_without_time": f"select count(*) from {schema}.fct_order_events_without_time",
        "on_time_events": f"select count(*) from {on_time}",
        "tumble_counted": f"select coalesce(sum(orders), 0) from {schema}.fct_item_sales_tumble_15m",
        "session_counted": f"select coalesce(sum(orders), 0) from {schema}.fct_user_sessions_10m",
        "hop_counted": f"select coalesce(sum(orders), 0) from {schema}.fct_item_sales_hop_1h_15m",
        "cumulate_counted": f"select coalesce(sum(orders), 0) from {schema}.fct_item_sales_cumulate_1h_1d",
        # an event in hour h of its day lies in the day's cumulate windows that end after it: 24 - h of them
        "cumulate_expected": f"select coalesce(sum(24 - hour(event_time)), 0) from {on_time}",
    }
    counts = {name: int(spark.sql(query).first()[0]) for name, query in queries.items()}
    counts["duplicates"] = counts["events_in"] - counts["deduplicated"]
    counts["hop_expected"] = 4 * counts["on_time_events"]  # a 1-hour hop sliding by 15 minutes: 4 windows
    counts["events_accounted"] = (
        counts["tumble_counted"] + counts["events_without_time"] + counts["late_events"] + counts["duplicates"]
    )
    return spark.createDataFrame([counts])


def order_window_suites() -> list[Suite]:
    return [
        Suite(
            "order_windows.tumble_15m",
            _tumble_with_recount,
            [
                *_aligned_window_expectations([15 * MINUTE]),
                gxe.ExpectColumnPairValuesToBeEqual(column_A="orders", column_B="recounted_orders"),
            ],
            row_id=["window_start", "item_id"],
        ),
        Suite(
            "order_windows.hop_1h_15m",
            lambda spark: _with_window_micros(_table(spark, "fct_item_sales_hop_1h_15m"), 15 * MINUTE),
            _aligned_window_expectations([HOUR]),
            row_id=["window_start", "item_id"],
        ),
        Suite(
            "order_windows.cumulate_1h_1d",
            lambda spark: _with_window_micros(_table(spark, "fct_item_sales_cumulate_1h_1d"), DAY),
            _aligned_window_expectations([step * HOUR for step in range(1, 25)]),
            row_id=["window_start", "window_end", "item_id"],
        ),
        Suite(
            "order_windows.sessions_10m",
            _sessions,
            [
                gxe.ExpectColumnValuesToBeBetween(column="window_micros", min_value=10 * MINUTE),
                gxe.ExpectColumnValuesToBeInSet(column="end_minus_window_time", value_set=[WINDOW_TIME_BEFORE_END]),
                gxe.ExpectColumnValuesToBeInSet(column="end_minus_last_event", value_set=[10 * MINUTE]),
                # sessions of one user never overlap or touch (touching events would have merged them)
                gxe.ExpectColumnValuesToBeBetween(column="after_previous_session", min_value=1),
            ],
            row_id=["user_id", "window_start"],
        ),
        Suite(
            "order_windows.top_items_1h",
            lambda spark: _table(spark, "fct_top_items_1h"),
            [
                gxe.ExpectColumnValuesToBeBetween(column="item_rank", min_value=1, max_value=3),
                gxe.ExpectCompoundColumnsToBeUnique(column_list=["window_start", "item_rank"]),
            ],
            row_id=["window_start", "item_id"],
        ),
        Suite(
            "order_windows.input_accounting",
            _accounting,
            [
                gxe.ExpectTableRowCountToEqual(value=1),
                gxe.ExpectColumnPairValuesToBeEqual(column_A="events_in", column_B="events_accounted"),
                gxe.ExpectColumnPairValuesToBeEqual(column_A="on_time_events", column_B="session_counted"),
                gxe.ExpectColumnPairValuesToBeEqual(column_A="hop_counted", column_B="hop_expected"),
                gxe.ExpectColumnPairValuesToBeEqual(column_A="cumulate_counted", column_B="cumulate_expected"),
            ],
        ),
    ]


def _difference(model: str, reference: str) -> Any:
    """Rows on one side only (as multisets): empty when the model equals the documented table row for row."""
    from pyspark.sql import functions as F

    def frame(spark: Any) -> Any:
        expected = _table(spark, reference)
        actual = _table(spark, model).select(*expected.columns)
        return actual.exceptAll(expected).withColumn("only_in", F.lit(model)).unionByName(
            expected.exceptAll(actual).withColumn("only_in", F.lit(reference))
        )

    return frame


def documented_example_suites() -> list[Suite]:
    return [
        Suite(
            f"documented_examples.{model}",
            _difference(model, reference),
            [gxe.ExpectTableRowCountToEqual(value=0)],
        )
        for model, reference in DOCUMENTED_EXAMPLES.items()
    ]
