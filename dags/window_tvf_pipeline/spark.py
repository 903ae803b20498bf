"""Spark for the pipeline: the SparkSession dbt's profile describes, and what Spark read for each query it ran.

What a query read comes from Spark's own SQL status store (the data behind the UI's SQL tab, kept even with the UI
off): the executed physical plan's file scans, each with its partition filters and its metrics (partitions and
files read, rows output). That is the proof that a run reads what its interval needs and no more."""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from window_tvf_pipeline.config import Settings

# The write command's arguments in a formatted plan: "Arguments: `spark_catalog`.`schema`.`table`, ..." for a
# CREATE TABLE AS SELECT, "Arguments: file:/.../schema.db/table, ..." for an INSERT; an Iceberg table's write (a
# data source V2 command) names it "IcebergWrite(table=spark_catalog.schema.table, ...)". Delta Lake's insert
# overwrite of partitions is "DeltaDynamicPartitionOverwriteCommand" with "Arguments: RelationV2[...]
# spark_catalog.schema.table ...", its INSERT INTO "AppendDataExecV1" with "DeltaTableV2(<session>,file:/.../
# schema.db/table,...", and a CREATE (OR REPLACE) TABLE AS SELECT in a V2 catalog (Delta's, Iceberg's)
# "Atomic(Create|Replace)TableAsSelect" with "Arguments: <catalog>, schema.table, ..." (Spark 3.5 and 4.x alike).
_WRITE = re.compile(
    r"\(\d+\) Execute (?:InsertIntoHadoopFsRelationCommand|CreateDataSourceTableAsSelectCommand)\n(?:.*\n)*?"
    r"Arguments: (?:`spark_catalog`\.`(\w+)`\.`(\w+)`|\S*/(\w+)\.db/(\w+),)"
    r"|\(\d+\) (?:OverwritePartitionsDynamic|OverwriteByExpression|AppendData)\n(?:.*\n)*?"
    r"Arguments: .*IcebergWrite\(table=(?:spark_catalog\.)?(\w+)\.(\w+),"
    r"|\(\d+\) DeltaDynamicPartitionOverwriteCommand\nArguments: RelationV2\[[^\]]*\] (?:spark_catalog\.)?(\w+)\.(\w+) "
    r"|\(\d+\) AppendDataExecV1\nArguments: DeltaTableV2\([^,]*,\S*/(\w+)\.db/(\w+),"
    r"|\(\d+\) Atomic(?:Create|Replace)TableAsSelect\nArguments: [^,\n]+, (?:spark_catalog\.)?(\w+)\.(\w+), "
)
# "Scan parquet spark_catalog.schema.table", or "Scan text " for files read by path (the landing files); an Iceberg
# table's scan is "BatchScan spark_catalog.schema.table" (group 1 empty).
_SCAN = re.compile(r"^(?:Scan (\w+) ?|BatchScan )(?:spark_catalog\.)?([\w.]*)")
# Not a scan of a table's data: an RDD (Delta Lake's table state) or a table format's own log (Delta's _delta_log,
# read as JSON and parquet files each time it computes a snapshot).
_NOT_DATA = re.compile(r"^Scan ExistingRDD|DeltaLogFileIndex|/_delta_log\b")
# An Iceberg scan's pushed filters, partition columns' and others' alike: "[filters=a >= 1, b IS NOT NULL, groupedBy=]".
_ICEBERG_FILTERS = re.compile(r"\[filters=(.*?), groupedBy=")
_PARTITION_FILTERS = re.compile(r"PartitionFilters: \[(.*?)(?:\]|\.\.\.)(?:,|\n|$)")


class SparkUnavailable(RuntimeError):
    """The target serves SQL only (a Thrift server): there is no SparkSession to read tables with."""


def spark_session(settings: Settings | None = None) -> Any:
    """dbt's own SparkSession when it already runs in this process, else dbt opens it (so the warehouse and
    metastore settings live in profiles.yml alone); a Spark Connect session for the connect target."""
    from pyspark import SparkContext
    from pyspark.sql import SparkSession

    settings = settings or Settings.from_environment()
    if settings.target == "connect":
        return SparkSession.builder.remote(os.environ["WINDOW_TVF_SPARK_REMOTE"]).getOrCreate()
    if settings.target == "thrift":
        raise SparkUnavailable(
            "A Thrift server serves SQL only, not Spark DataFrames: run this with the connect target against the "
            "same metastore (docs/spark_clusters.md)"
        )
    if SparkContext._active_spark_context is None:
        from window_tvf_pipeline.dbt import dbt

        dbt(["show", "--inline", "select 1 as spark_is_up", "--quiet"], settings=settings)
    return SparkSession.builder.getOrCreate()


def stop_spark() -> None:
    """Stops this process's SparkSession and its JVM gateway, if one runs: at the end of a process, so that the JVM
    and py4j's connections close while Python's logging still works.

    A JVM that is already gone (killed, or crashed: its own log says why) leaves nothing to stop: the error of
    reaching it is logged, not raised, so that what the process was reporting (pytest's summary of the failures the
    dead JVM caused, a DAG run's outcome) still gets out."""
    import logging

    from py4j.protocol import Py4JError
    from pyspark import SparkContext

    context = SparkContext._active_spark_context
    try:
        if context is not None:
            context.stop()
    except (Py4JError, ConnectionError) as error:  # Py4JNetworkError, or the refused socket itself
        logging.getLogger(__name__).warning("Spark's JVM was gone before the end of this process: %s", error)
        SparkContext._active_spark_context = None
    gateway = SparkContext._gateway
    if gateway is not None:
        gateway.shutdown()
        SparkContext._gateway = None
        SparkContext._jvm = None


@dataclass(frozen=True)
class Scan:
    """One file scan of an executed plan."""

    table: str  # schema.table, or the scanned files' format for a path scan (landing files)
    partition_filters: str  # as the plan prints them ('' for a table without partitions or filters); for an
    # Iceberg table every filter pushed into its scan (Iceberg prunes partitions and files with them)
    partitions_read: int | None  # None for a table without partitions, and for Iceberg's scan (it counts files)
    files_read: int
    rows: int  # rows the scan produced (after partition pruning, before other filters)


@dataclass(frozen=True)
class Query:
    """One SQL statement: the table it wrote (its model), if any, and its scans (those of its nested executions
    too: queries_since)."""

    execution_id: int  # the statement's (root) execution
    written_table: str | None  # schema.table of an INSERT or CREATE ... AS SELECT
    scans: list[Scan]


def _metric(values: dict[str, str], name: str) -> int | None:
    text = values.get(name)
    return None if text is None else int(re.sub(r"[^0-9]", "", text) or 0)


def _scans(store: Any, execution_id: int) -> list[Scan]:
    graph_nodes = store.planGraph(execution_id).allNodes()
    values = store.executionMetrics(execution_id)
    scans = []
    for index in range(graph_nodes.size()):
        node = graph_nodes.apply(index)
        scan = _SCAN.match(node.name())
        if not scan or _NOT_DATA.search(node.name()) or _NOT_DATA.search(node.desc()):
            continue
        metrics = node.metrics()
        named = {}
        for position in range(metrics.size()):
            metric = metrics.apply(position)
            value = values.get(metric.accumulatorId())
            if value.isDefined():
                named[metric.name()] = value.get()
        # the plan cuts long lists short with "..." and no closing bracket
        filters = (_ICEBERG_FILTERS if scan.group(1) is None else _PARTITION_FILTERS).search(node.desc())
        scans.append(
            Scan(
                table=scan.group(2) or f"{scan.group(1)} files",
                partition_filters=filters.group(1) if filters else "",
                partitions_read=_metric(named, "number of partitions read"),
                files_read=_metric(named, "number of files read") or _metric(named, "number of result data files") or 0,
                rows=_metric(named, "number of output rows") or 0,
            )
        )
    return scans


def last_execution_id(spark: Any) -> int:
    """The newest SQL execution's id (-1 before any): pass it to `queries_since` to see what ran after it."""
    store = spark._jsparkSession.sharedState().statusStore()
    count = store.executionsCount()
    return -1 if count == 0 else store.executionsList(int(count) - 1, 1).apply(0).executionId()


def _written_table(plans: Iterable[str]) -> str | None:
    """schema.table that the first of `plans` with a write command writes (read lazily: the root's plan first)."""
    for plan in plans:
        written = _WRITE.search(plan)
        if written:
            return ".".join(name for name in written.groups() if name)
    return None


def queries_since(spark: Any, after_id: int) -> list[Query]:
    """The finished SQL executions after `after_id`, oldest first, with what each wrote and scanned. A statement
    whose command runs its query as nested executions (Delta Lake's writes, a CREATE TABLE AS SELECT in a V2
    catalog: the command's execution, then the query's with the scans, each with the command's as its root
    execution, Spark 3.4 and later) is one Query: its root's id, the table its command writes and every nested
    execution's scans. Spark keeps the last spark.sql.ui.retainedExecutions (1000) executions: call this after each
    run, not after a backfill."""
    store = spark._jsparkSession.sharedState().statusStore()
    count = int(store.executionsCount())
    executions = store.executionsList(0, count)
    statements: dict[int, list[Any]] = {}  # root execution id -> its executions, root first
    for index in range(executions.size()):
        execution = executions.apply(index)
        execution_id = execution.executionId()
        if execution_id <= after_id:
            continue
        root = execution.rootExecutionId()
        statements.setdefault(root if root > after_id else execution_id, []).append(execution)
    queries = []
    for root_id, group in sorted(statements.items()):
        group.sort(key=lambda execution: execution.executionId() != root_id)  # the root first (stable: then by id)
        if group[0].completionTime().isEmpty():
            continue
        queries.append(
            Query(
                execution_id=root_id,
                written_table=_written_table(execution.physicalPlanDescription() or "" for execution in group),
                scans=[scan for execution in group for scan in _scans(store, execution.executionId())],
            )
        )
    return queries
