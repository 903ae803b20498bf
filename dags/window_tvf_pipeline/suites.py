"""The expectation suites, as code. The order pipeline's suites check what a run rewrote: the window dates from its
earliest on-time event on (window invariants, a recount of the recomputed tumble and hop windows) and its
interval's arrivals (input accounting), so a check's cost does not grow with history either. The documented
examples' suites compare Flink's tables row for row."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from datetime import datetime, time, timedelta, timezone
from typing import Any, Callable
from zoneinfo import ZoneInfo

import great_expectations.expectations as gxe

from window_tvf_pipeline.config import MICROBATCH_SUFFIX, WINDOW_TABLES, Settings, duration
from window_tvf_pipeline.documented_examples import DOCUMENTED_EXAMPLES

MINUTE = 60_000_000
HOUR = 60 * MINUTE
DAY = 24 * HOUR
WINDOW_TIME_BEFORE_END = 1000  # window_time = window_end - 1 ms, in microseconds
LOCAL_ZONE = "America/New_York"  # the zone of the local-day tables (models/order_pipeline/windows/*_new_york.sql)
LOCAL_SMALLEST_OFFSET = timedelta(hours=-5)  # its standard time; daylight time is -4 hours


@dataclass(frozen=True)
class Suite:
    """One table (a DataFrame: the table plus columns its expectations read) and what must hold for it."""

    name: str
    frame: Callable[[Any], Any]  # SparkSession -> DataFrame
    expectations: list[Any]
    row_id: list[str] = field(default_factory=list)  # columns that identify a failing row in reports


def timestamp_literal(instant: datetime) -> str:
    return f"timestamp'{instant.isoformat()}'"


@dataclass(frozen=True)
class Checked:
    """What one run of the hourly DAG rewrote, as SQL conditions: its interval's arrivals, the window dates from its
    earliest on-time event on, and where the tumble and hop recounts start (E - window size: every window that
    starts there holds only events from there on)."""

    schema: str
    start: datetime
    end: datetime
    earliest: datetime  # interval start - allowed lateness: the earliest on-time event the interval can bring
    deduplication_ttl: str
    # The DAG's mode (Settings.window_models). The microbatch twins hold the windows of the day batches built so far
    # (window_time before `windows_until`); the insert_overwrite tables also those of later days (a local day
    # that ends after midnight UTC).
    window_models: str = "incremental"
    windows_until: datetime | None = None

    @classmethod
    def interval(cls, settings: Settings, start: datetime, end: datetime) -> Checked:
        until = settings.microbatch_range(start, end)[1] if settings.window_models == "microbatch" else None
        return cls(settings.schema, start, end, start - settings.lateness, settings.deduplication_ttl,
                   settings.window_models, until)

    def table(self, spark: Any, name: str) -> Any:
        """A pipeline table; a window table is the one the DAG's mode builds."""
        suffix = MICROBATCH_SUFFIX if self.window_models == "microbatch" and name in WINDOW_TABLES else ""
        return spark.table(f"{self.schema}.{name}{suffix}")


    @property
    def arrivals(self) -> str:
        return f"arrival_hour >= {timestamp_literal(self.start)} and arrival_hour < {timestamp_literal(self.end)}"

    @property
    def rewritten_dates(self) -> str:
        return f"window_date >= to_date({timestamp_literal(self.earliest - timedelta(milliseconds=1))})"

    @property
    def rewritten_hours(self) -> str:
        """The hours a table stored by window_hour (window_partition='hour') rewrote: a UTC table's, whose windows'
        first changeable hour is that of E - 1 ms."""
        return f"window_hour >= date_trunc('hour', {timestamp_literal(self.earliest - timedelta(milliseconds=1))})"

    def events_from(self, since: datetime) -> str:
        """On-time events from `since` on, read only from the arrival hours that can hold them."""
        return (
            f"arrival_status = 'on_time' and event_time >= {timestamp_literal(since)} "
            f"and arrival_hour > {timestamp_literal(since - timedelta(hours=1))}"
        )


def _micros(column: Any) -> Any:
    """Epoch microseconds of a timestamp column or expression, of either type: a `timestamp_ntz` (the window
    columns, a wall clock) is read on the session's clock (UTC in the pipeline) by an explicit cast, since
    `unix_micros` takes only `timestamp` on Spark 3.5 and 4.0 (Spark 4.3 inserts the same cast itself)."""
    from pyspark.sql import functions as F

    return F.unix_micros((F.col(column) if isinstance(column, str) else column).cast("timestamp"))


def _with_window_micros(frame: Any, period: int | None = None) -> Any:
    """Adds what the invariants read: the window's length, window_end - window_time, and (for aligned windows)
    window_start's distance from the grid of `period` (UTC epoch-aligned, offset 0)."""
    from pyspark.sql import functions as F

    frame = frame.withColumn("window_micros", _micros("window_end") - _micros("window_start"))
    frame = frame.withColumn("end_minus_window_time", _micros("window_end") - _micros("window_time"))
    if period is None:
        return frame
    return frame.withColumn("start_off_grid", F.pmod(_micros("window_start"), F.lit(period)))


def _aligned_window_expectations(sizes: list[int]) -> list[Any]:
    return [
        gxe.ExpectColumnValuesToBeInSet(column="window_micros", value_set=sizes),
        gxe.ExpectColumnValuesToBeInSet(column="end_minus_window_time", value_set=[WINDOW_TIME_BEFORE_END]),
        gxe.ExpectColumnValuesToBeInSet(column="start_off_grid", value_set=[0]),
        gxe.ExpectColumnValuesToBeBetween(column="orders", min_value=1),
        gxe.ExpectCompoundColumnsToBeUnique(column_list=["window_start", "window_end", "item_id"]),
    ]


def _recount(checked: Checked, spark: Any, table: str, size: int, slide: int) -> Any:
    """The windows of the rewritten dates of a tumble (slide = size) or hop table; those recomputed beside an
    independent recount of the on-time events per window and item: every event counted exactly once in each window
    it belongs to. Windows that start at or after E - size hold only events from there on, which are read from the
    arrival hours that can hold them."""
    from pyspark.sql import functions as F

    since = checked.earliest - timedelta(microseconds=size)
    since_micros = _micros(F.lit(since))
    events = checked.table(spark, "int_order_events").where(checked.events_from(since))
    last_start = _micros("event_time") - F.pmod(_micros("event_time"), F.lit(slide))
    recount = (
        events.withColumn("copy", F.explode(F.sequence(F.lit(0), F.lit(size // slide - 1))))
        .withColumn("start_micros", last_start - F.col("copy").cast("long") * F.lit(slide).cast("long"))
        .where(F.col("start_micros") >= since_micros)
        .where(F.lit(checked.windows_until is None) | (F.col("start_micros") + F.lit(size) <= _micros(F.lit(checked.windows_until))))
        .withColumn("window_start", F.timestamp_micros("start_micros"))
        .groupBy("window_start", "item_id")
        .agg(F.count("*").alias("recounted_orders"))
    )
    windows = _with_window_micros(checked.table(spark, table).where(checked.rewritten_dates), slide)
    joined = windows.join(recount.where(F.col("window_start") >= F.lit(since)), ["window_start", "item_id"], "full_outer")
    # Windows of the rewritten dates that start before the recount's range are final (copied as they were, and
    # recounted by the run that wrote them): the window invariants hold for them, the recount is not theirs.
    before = F.col("window_start") < F.lit(since)
    return joined.withColumn("recounted_orders", F.when(before, F.col("orders")).otherwise(F.col("recounted_orders")))


def _sessions(checked: Checked, spark: Any) -> Any:
    """The sessions of the hours the run rewrote, and every session that could overlap or touch one of them (those
    ending at or after the earliest start among them), so each rewritten session is checked against the session
    before it: a bounded read, where the day's sessions would grow through the day."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    by_user = Window.partitionBy("user_id").orderBy("window_start")
    table = checked.table(spark, "fct_user_sessions_10m")
    if checked.window_models == "microbatch":  # the twin is stored by date (dbt's day batches)
        sessions = table.where(checked.rewritten_dates)
    else:
        # window_start is the session clock's wall time (the session time zone's, as the literal is read)
        earliest = table.where(checked.rewritten_hours).agg(F.min("window_start")).first()[0]
        sessions = table.where(
            f"window_hour >= date_trunc('hour', timestamp'{earliest:%Y-%m-%d %H:%M:%S.%f}')" if earliest else checked.rewritten_hours
        )
    return (
        _with_window_micros(sessions)
        .withColumn("end_minus_last_event", _micros("window_end") - _micros("last_event_time"))
        .withColumn("after_previous_session", _micros("window_start") - F.lag(_micros("window_end")).over(by_user))
    )


def _accounting(checked: Checked, spark: Any) -> Any:
    """One row: the interval's landing lines, and where each went: rejected, dropped as a duplicate of an event kept
    within the deduplication TTL, or kept (on time, late, early, without time), each counted where it is listed.
    Counted first, then made a DataFrame: Spark 4.3 fails with an internal error when GX filters one query that
    holds scalar subqueries."""
    schema, arrivals = checked.schema, checked.arrivals
    lines = f"{schema}.stg_order_events as line where {arrivals} and line_number is not null"
    queries = {
        "lines_in": f"select count(*) from {lines}",
        "rejected": f"select count(*) from {schema}.fct_rejected_order_events where {arrivals} and line_number is not null",
        "duplicates": f"select count(*) from {lines} and {_duplicate(checked)}",
        "kept": f"select count(*) from {schema}.int_order_events where {arrivals}",
        "on_time": f"select count(*) from {schema}.int_order_events_on_time where {arrivals}",
        **{
            status: f"select count(*) from {schema}.{view} where {arrivals}"
            for status, view in LISTED_STATUSES.items()
        },
    }
    counts = {name: int(spark.sql(query).first()[0]) for name, query in queries.items()}
    counts["by_status"] = sum(counts[status] for status in STATUSES)
    counts["accounted"] = counts["rejected"] + counts["duplicates"] + counts["by_status"]
    return spark.createDataFrame([counts])


def _duplicate(checked: Checked) -> str:
    """A valid landing line (`line`) that int_order_events did not keep, while it kept another line of the same
    event_id that arrived within the deduplication TTL before it (in an arrival hour after arrival_hour - TTL, up to
    its own). Reads int_order_events' partitions from the interval's start - TTL on only (the bounds are literals,
    so that Spark prunes partitions: a correlated condition alone would read them all)."""
    ttl = duration(checked.deduplication_ttl)
    kept = f"{checked.schema}.int_order_events as kept"
    return (
        f"line.reason is null "
        f"and not exists (select 1 from {kept} where kept.arrival_hour = line.arrival_hour "
        f"and kept.source_file = line.source_file and kept.line_number = line.line_number "
        f"and kept.arrival_hour >= {timestamp_literal(checked.start)} and kept.arrival_hour < {timestamp_literal(checked.end)}) "
        f"and exists (select 1 from {kept} where kept.event_id = line.event_id "
        f"and kept.arrival_hour <= line.arrival_hour "
        f"and kept.arrival_hour > line.arrival_hour - interval '{ttl.total_seconds():.0f}' second "
        f"and kept.arrival_hour > {timestamp_literal(checked.start - ttl)} and kept.arrival_hour < {timestamp_literal(checked.end)})"
    )


def _local_day_hours(day_start: datetime) -> float:
    """How long the local day that starts at the wall-clock midnight `day_start` lasts, in elapsed hours (zoneinfo)."""
    zone = ZoneInfo(LOCAL_ZONE)
    start = day_start.replace(tzinfo=zone).astimezone(timezone.utc)
    end = (day_start + timedelta(days=1)).replace(tzinfo=zone).astimezone(timezone.utc)
    return (end - start).total_seconds() / 3600


def _first_changeable_day(checked: Checked) -> datetime:
    """Wall-clock midnight of the first local day an on-time event of the interval can change: the day of E's
    earliest wall time in the zone (E plus its smallest offset). That day and the later ones are recomputed, so
    they lie in the dates the run rewrote."""
    wall = (checked.earliest.astimezone(timezone.utc) + LOCAL_SMALLEST_OFFSET).replace(tzinfo=None)
    return datetime.combine(wall.date(), time())


def _last_local_midnight(instant: datetime) -> datetime:
    """The latest local midnight at or before `instant`, as a UTC instant (zoneinfo)."""
    local = instant.astimezone(ZoneInfo(LOCAL_ZONE))
    return datetime.combine(local.date(), time(), tzinfo=ZoneInfo(LOCAL_ZONE)).astimezone(timezone.utc)


def _local_days(checked: Checked, spark: Any) -> Any:
    """The local-day windows the run rewrote, with their length in elapsed hours beside zoneinfo's length of that
    day (23 on the day clocks spring forward, 25 on the day they fall back), the instant of their end, and
    window_time's distance from it."""
    from pyspark.sql import functions as F

    days = checked.table(spark, "fct_item_sales_daily_new_york").where(checked.rewritten_dates)
    starts = [row[0] for row in days.select("window_start").distinct().collect()]
    expected = spark.createDataFrame(
        [(start, _local_day_hours(start)) for start in starts], "window_start timestamp_ntz, expected_hours double"
    )

    def instant(column: str) -> Any:
        return _micros(F.to_utc_timestamp(F.col(column).cast("string"), LOCAL_ZONE))

    return (
        days.join(expected, ["window_start"], "left")
        .withColumn("elapsed_hours", (instant("window_end") - instant("window_start")) / F.lit(HOUR))
        .withColumn("end_minus_window_time", instant("window_end") - _micros("window_time"))
        .withColumn("starts_at_midnight", F.date_format(F.col("window_start").cast("string"), "HH:mm:ss.SSSSSS"))
    )


def _events_in_local_days(checked: Checked, spark: Any) -> Any:
    """Each on-time event that arrived in the interval, with the number of local-day windows of its item that hold
    its instant (local midnight to local midnight, converted by Spark's to_utc_timestamp): one. The interval's
    events are what it changed; the day's earlier events were checked by the runs that brought them, so the check
    reads as much at the day's end as at its start."""
    from pyspark.sql import functions as F

    since_wall = _first_changeable_day(checked)
    events = (
        checked.table(spark, "int_order_events")
        .where(f"{checked.arrivals} and arrival_status = 'on_time'")
        .select("event_id", "item_id", "event_time")
    )
    if checked.windows_until:  # the events of the local days whose window_time lies in a day batch built
        events = events.where(F.col("event_time") < F.lit(_last_local_midnight(checked.windows_until)))
    days = (
        checked.table(spark, "fct_item_sales_daily_new_york")
        .where(checked.rewritten_dates)
        .where(F.col("window_start") >= F.lit(since_wall).cast("timestamp_ntz"))
        .select(
            "item_id",
            F.to_utc_timestamp(F.col("window_start").cast("string"), LOCAL_ZONE).alias("day_from"),
            F.to_utc_timestamp(F.col("window_end").cast("string"), LOCAL_ZONE).alias("day_until"),
        )
    )
    inside = (events.item_id == days.item_id) & (events.event_time >= days.day_from) & (events.event_time < days.day_until)
    return events.join(days, inside, "left").groupBy(events.event_id).agg(F.count(days.day_from).alias("local_days"))


def _month_to_date(checked: Checked, spark: Any) -> Any:
    """The month-to-date windows the run rewrote, each beside the sum of the local days it covers (from the daily
    table of the same months): a month-to-date window is the sum of its month's days so far."""
    from pyspark.sql import functions as F

    month = _first_changeable_day(checked).replace(day=1) - timedelta(days=1)
    month = datetime(month.year, month.month, 1)  # the month before the first changeable day's, to be sure
    totals = checked.table(spark, "fct_item_sales_month_to_date_new_york").where(checked.rewritten_dates)
    days = (
        checked.table(spark, "fct_item_sales_daily_new_york")
        .where(F.col("window_date") >= F.lit(month.date()))
        .select("item_id", F.col("window_start").alias("day_start"), F.col("orders").alias("day_orders"))
    )
    covered = (
        (totals.item_id == days.item_id) & (days.day_start >= totals.window_start) & (days.day_start < totals.window_end)
    )
    return (
        totals.where(F.col("window_start") >= F.lit(month).cast("timestamp_ntz"))
        .join(days, covered, "left")
        .groupBy(totals.window_start, totals.window_end, totals.item_id, totals.orders)
        .agg(F.sum("day_orders").alias("days_orders"))
        .withColumn("starts_on_the_first", F.date_format(F.col("window_start").cast("string"), "dd HH:mm:ss.SSSSSS"))
        .withColumn("ends_at_midnight", F.date_format(F.col("window_end").cast("string"), "HH:mm:ss.SSSSSS"))
    )


def _active_users(checked: Checked, spark: Any) -> Any:
    """The rolling active-user windows (7 and 30 local days) the run rewrote, each beside the largest and the sum of
    the daily active users of the days it covers (fct_active_users_1d_new_york, read from 31 days before the first
    rewritten date): a user active on some day of a window is counted once in it, so its distinct count lies between
    the two; and the HLL estimate's relative error."""
    from pyspark.sql import functions as F

    since = (checked.earliest - timedelta(days=32)).date()
    days = (
        checked.table(spark, "fct_active_users_1d_new_york")
        .where(F.col("window_date") >= F.lit(since))
        .select(F.col("window_start").alias("day_start"), F.col("active_users").alias("day_users"))
    )
    frames = []
    for name in ("fct_active_users_7d_new_york", "fct_active_users_30d_new_york"):
        windows = checked.table(spark, name).where(checked.rewritten_dates).withColumn("rolling", F.lit(name))
        covered = (days.day_start >= windows.window_start) & (days.day_start < windows.window_end)
        frames.append(
            windows.join(days, covered, "left")
            .groupBy("rolling", "window_start", "window_end", "active_users", "approx_active_users")
            .agg(F.max("day_users").alias("max_day_users"), F.sum("day_users").alias("sum_day_users"))
        )
    rolling = frames[0].unionByName(frames[1])
    return rolling.withColumn(
        "approx_relative_error", F.abs(F.col("approx_active_users") - F.col("active_users")) / F.col("active_users")
    )


STATUSES = ["on_time", "late", "early", "no_event_time"]
# The kept statuses other than on_time, and the view that lists each.
LISTED_STATUSES = {
    "late": "fct_late_order_events",
    "early": "fct_early_order_events",
    "no_event_time": "fct_order_events_without_time",
}


def order_window_suites(checked: Checked) -> list[Suite]:
    """What one run must leave true, over what it rewrote."""

    def rewritten(table: str) -> Callable[[Any], Any]:
        return lambda spark: checked.table(spark, table).where(checked.rewritten_dates)

    return [
        Suite(
            "order_windows.tumble_15m",
            lambda spark: _recount(checked, spark, "fct_item_sales_tumble_15m", 15 * MINUTE, 15 * MINUTE),
            [
                *_aligned_window_expectations([15 * MINUTE]),
                gxe.ExpectColumnPairValuesToBeEqual(column_A="orders", column_B="recounted_orders"),
            ],
            row_id=["window_start", "item_id"],
        ),
        Suite(
            "order_windows.hop_1h_15m",
            lambda spark: _recount(checked, spark, "fct_item_sales_hop_1h_15m", HOUR, 15 * MINUTE),
            [
                *_aligned_window_expectations([HOUR]),
                gxe.ExpectColumnPairValuesToBeEqual(column_A="orders", column_B="recounted_orders"),
            ],
            row_id=["window_start", "item_id"],
        ),
        Suite(
            "order_windows.cumulate_1h_1d",
            lambda spark: _with_window_micros(rewritten("fct_item_sales_cumulate_1h_1d")(spark), DAY),
            _aligned_window_expectations([step * HOUR for step in range(1, 25)]),
            row_id=["window_start", "window_end", "item_id"],
        ),
        Suite(
            "order_windows.daily_new_york",
            lambda spark: _local_days(checked, spark),
            [
                gxe.ExpectColumnPairValuesToBeEqual(column_A="elapsed_hours", column_B="expected_hours"),
                gxe.ExpectColumnValuesToBeInSet(column="elapsed_hours", value_set=[23.0, 24.0, 25.0]),
                gxe.ExpectColumnValuesToBeInSet(column="starts_at_midnight", value_set=["00:00:00.000000"]),
                gxe.ExpectColumnValuesToBeInSet(column="end_minus_window_time", value_set=[WINDOW_TIME_BEFORE_END]),
                gxe.ExpectColumnValuesToBeBetween(column="orders", min_value=1),
                gxe.ExpectCompoundColumnsToBeUnique(column_list=["window_start", "item_id"]),
            ],
            row_id=["window_start", "item_id"],
        ),
        Suite(
            "order_windows.events_in_one_local_day",
            lambda spark: _events_in_local_days(checked, spark),
            [gxe.ExpectColumnValuesToBeInSet(column="local_days", value_set=[1])],
            row_id=["event_id"],
        ),
        Suite(
            "order_windows.month_to_date_new_york",
            lambda spark: _month_to_date(checked, spark),
            [
                gxe.ExpectColumnPairValuesToBeEqual(column_A="orders", column_B="days_orders"),
                gxe.ExpectColumnValuesToBeInSet(column="starts_on_the_first", value_set=["01 00:00:00.000000"]),
                gxe.ExpectColumnValuesToBeInSet(column="ends_at_midnight", value_set=["00:00:00.000000"]),
                gxe.ExpectCompoundColumnsToBeUnique(column_list=["window_start", "window_end", "item_id"]),
            ],
            row_id=["window_start", "window_end", "item_id"],
        ),
        Suite(
            "order_windows.active_users_new_york",
            lambda spark: _active_users(checked, spark),
            [
                gxe.ExpectColumnPairValuesAToBeGreaterThanB(column_A="active_users", column_B="max_day_users", or_equal=True),
                gxe.ExpectColumnPairValuesAToBeGreaterThanB(column_A="sum_day_users", column_B="active_users", or_equal=True),
                gxe.ExpectColumnValuesToNotBeNull(column="max_day_users"),
                # lg_k 12: relative standard error about 1.6%; 10% is six of them
                gxe.ExpectColumnValuesToBeBetween(column="approx_relative_error", min_value=0, max_value=0.1),
            ],
            row_id=["rolling", "window_start"],
        ),
        Suite(
            "order_windows.sessions_10m",
            lambda spark: _sessions(checked, spark),
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
            rewritten("fct_top_items_1h"),
            [
                gxe.ExpectColumnValuesToBeBetween(column="item_rank", min_value=1, max_value=3),
                gxe.ExpectCompoundColumnsToBeUnique(column_list=["window_start", "item_rank"]),
            ],
            row_id=["window_start", "item_id"],
        ),
        Suite(
            "order_windows.input_accounting",
            lambda spark: _accounting(checked, spark),
            [
                gxe.ExpectTableRowCountToEqual(value=1),
                # every kept arrival has one status, listed where that status is listed
                gxe.ExpectColumnPairValuesToBeEqual(column_A="kept", column_B="by_status"),
                # lines in = rejected + duplicates + on time + late + early + without time: none lost
                gxe.ExpectColumnPairValuesToBeEqual(column_A="lines_in", column_B="accounted"),
            ],
        ),
    ]


TOP_REASONS = 5
SAMPLE_LINES = 3


@dataclass(frozen=True)
class Rejections:
    """What the rejection gate checks for one group of landing lines (an interval's event lines, or one price
    snapshot's lines), with what its message shows."""

    group: str
    lines: int
    rejected: int
    rejected_share: float
    top_reasons: str  # e.g. "bad_type:quantity 12, not_json 3"
    sample_lines: str  # the first rejected lines: file, line number, message

    @classmethod
    def of(cls, spark: Any, table: str, where: str, group: str, share_without_lines: float) -> Rejections:
        """The rejections among the rows of `table` (stg_order_events, stg_item_prices) that satisfy `where`. A
        group without lines has `share_without_lines` rejected: 0 for an interval (nothing arrived), 1 for a
        price snapshot (an empty price list prices nothing)."""
        rows = f"{table} where {where}"
        counts = spark.sql(
            f"select count(line_number), count(case when reason is not null then line_number end) from {rows}"
        ).first()
        reasons = spark.sql(
            f"select reason, count(*) as lines from {rows} and reason is not null "
            f"group by reason order by lines desc, reason limit {TOP_REASONS}"
        ).collect()
        samples = spark.sql(
            f"select source_file, line_number, reason_message from {rows} and reason is not null "
            f"order by source_file, line_number limit {SAMPLE_LINES}"
        ).collect()
        lines, rejected = int(counts[0]), int(counts[1])
        return cls(
            group=group,
            lines=lines,
            rejected=rejected,
            rejected_share=rejected / lines if lines else share_without_lines,
            top_reasons=", ".join(f"{row.reason} {row.lines}" for row in reasons),
            sample_lines=" | ".join(
                f"{row.source_file.rsplit('/', 1)[-1]} line {row.line_number}: {row.reason_message[:240]}" for row in samples
            ),
        )


def rejection_gate_suite(name: str, groups: list[Rejections], max_share: float) -> Suite:
    """At most `max_share` of each group's lines rejected."""
    columns = "group string, lines bigint, rejected bigint, rejected_share double, top_reasons string, sample_lines string"
    return Suite(
        name,
        lambda spark: spark.createDataFrame([asdict(group) for group in groups], columns),
        [gxe.ExpectColumnValuesToBeBetween(column="rejected_share", min_value=0, max_value=max_share)],
        row_id=["group"],
    )


def _difference(schema: str, model: str, reference: str) -> Any:
    """Rows on one side only (as multisets): empty when the model equals the documented table row for row."""
    from pyspark.sql import functions as F

    def frame(spark: Any) -> Any:
        expected = spark.table(f"{schema}.{reference}")
        actual = spark.table(f"{schema}.{model}").select(*expected.columns)
        return actual.exceptAll(expected).withColumn("only_in", F.lit(model)).unionByName(
            expected.exceptAll(actual).withColumn("only_in", F.lit(reference))
        )

    return frame


def documented_example_suites(schema: str) -> list[Suite]:
    return [
        Suite(
            f"documented_examples.{model}",
            _difference(schema, model, reference),
            [gxe.ExpectTableRowCountToEqual(value=0)],
        )
        for model, reference in DOCUMENTED_EXAMPLES.items()
    ]
