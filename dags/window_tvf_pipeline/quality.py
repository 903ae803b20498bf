"""Great Expectations on the Spark tables: runs suites (defined in `suites.py`) with GX 1.x checkpoints, writes
the Data Docs site, and fails with a message that names the suite, the expectation and sample failing rows."""

from __future__ import annotations

import contextlib
import fcntl
import logging
import time
from collections.abc import Iterator
from datetime import datetime
from typing import Any

# GX logs every function it registers at INFO (200 lines) when it is imported, below, and Airflow's logging is
# configured: that is noise, not news.
logging.getLogger("great_expectations").setLevel(logging.WARNING)

from window_tvf_pipeline.config import Settings  # noqa: E402
from window_tvf_pipeline.spark import spark_session  # noqa: E402
from window_tvf_pipeline.suites import (  # noqa: E402
    Checked,
    Rejections,
    Suite,
    documented_example_suites,
    order_window_suites,
    rejection_gate_suite,
    timestamp_literal,
)

SAMPLE_ROWS = 5
log = logging.getLogger(__name__)


class QualityCheckFailed(AssertionError):
    """Raised by a check task: fails the task, and so the run."""


class RejectionGateFailed(QualityCheckFailed):
    """More than the allowed share of landing lines rejected: the run stops before it uses them."""


# The file open_context locks, in settings.gx_dir.
CONTEXT_LOCK = ".window_tvf.lock"


@contextlib.contextmanager
def open_context(settings: Settings) -> Iterator[Any]:
    """Great Expectations' file context in settings.gx_dir (created the first time), held by this process alone
    until the block ends. A run writes the context's files (its data sources in great_expectations.yml, results,
    Data Docs), and two tasks of one interval can validate at the same moment (the two rejection gates): one read
    the other's half-written great_expectations.yml ("argument of type 'NoneType' is not iterable" from GX's
    config parser). An exclusive lock on a file beside it makes the runs take turns (a gate's run: about 3 s)."""
    import great_expectations as gx

    from great_expectations.data_context.types.base import ProgressBarsConfig

    settings.gx_dir.mkdir(parents=True, exist_ok=True)
    with open(settings.gx_dir / CONTEXT_LOCK, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        context = gx.get_context(mode="file", project_root_dir=str(settings.gx_dir))
        # GX draws tqdm bars ("Calculating Metrics") on stderr, which Airflow logs at ERROR: off.
        context.variables.progress_bars = ProgressBarsConfig(globally=False, metric_calculations=False)
        yield context


def data_docs_index(settings: Settings) -> str:
    return str(settings.gx_dir / "gx" / "uncommitted" / "data_docs" / "local_site" / "index.html")


def _exception_messages(info: dict) -> list[str]:
    """GX reports an exception either directly or keyed by each metric that raised it."""
    if info.get("exception_message"):
        return [str(info["exception_message"])]
    return [str(v["exception_message"]) for v in info.values() if isinstance(v, dict) and v.get("exception_message")]


def _describe_failure(suite: Suite, result: Any, frame: Any) -> str:
    lines = [f"Great Expectations suite '{suite.name}' failed:"]
    for outcome in result.results:
        if outcome.success:
            continue
        config = outcome.expectation_config
        arguments = {k: v for k, v in config.kwargs.items() if k not in ("batch_id", "result_format")}
        details = outcome.result or {}
        raised = _exception_messages(outcome.exception_info or {})
        if raised:
            counts = f"could not be evaluated: {raised[0][:500]}"
        elif "unexpected_count" in details:
            counts = f"{details['unexpected_count']} of {details.get('element_count')} rows unexpected"
        else:
            counts = f"observed {details.get('observed_value')}"
        # GX lists failing rows by the suite's row ids; for a table-level expectation (a row count, a one-row
        # accounting table) the validated rows themselves are the sample.
        sample = [{k: _plain(v) for k, v in row.items()} for row in details.get("partial_unexpected_index_list") or []]
        sample = sample or [row.asDict() for row in frame.limit(SAMPLE_ROWS).collect()]
        lines.append(f"  - {config.type}({arguments}): {counts}; sample failing rows: {sample[:SAMPLE_ROWS]}")
    return "\n".join(lines)


def _plain(value: Any) -> Any:
    """A row id's value as Spark's rows give it, whichever engine validated: numpy and pandas scalars (a suite
    validated in pandas) become Python's int, float, datetime; a missing value None."""
    import pandas as pd

    if value is None or (not isinstance(value, (str, bytes)) and pd.api.types.is_scalar(value) and pd.isna(value)):
        return None
    if isinstance(value, pd.Timestamp):
        return value.to_pydatetime()
    return value.item() if hasattr(value, "item") and not isinstance(value, (str, bytes)) else value


def run_suites(suites: list[Suite], run_name: str, settings: Settings) -> list[str]:
    """Validates every suite (all of them, so one report shows every failure), updates the Data Docs, and raises
    QualityCheckFailed listing the failures. Returns the names of the suites that passed.

    A suite of at most `settings.gx_local_rows` rows (an interval's windows are a few thousand) costs one Spark
    query: its first N + 1 rows are collected, and as they are all of it, validated in pandas. A larger one is then
    cached and validated on Spark (it paid for the N + 1 rows too). Same expectations, same results: on Spark, GX
    computes each metric as a Spark job of its own (over Spark Connect, a round trip and a plan analysis each),
    which made the checks the slowest task of an interval. Each suite's rows, engine and time go to the log."""
    spark = spark_session(settings)
    with open_context(settings) as context:
        return _run_suites(context, spark, suites, run_name, settings)


def _run_suites(context: Any, spark: Any, suites: list[Suite], run_name: str, settings: Settings) -> list[str]:
    from great_expectations.core.run_identifier import RunIdentifier

    sources = _Sources(context)
    failures, passed, results = [], [], []
    limit = settings.gx_local_rows
    for suite in suites:
        began = time.monotonic()
        frame = suite.frame(spark)
        rows = frame.limit(limit + 1).toPandas() if limit else None
        local = rows is not None and len(rows) <= limit
        if not local:
            # computed once for GX's many jobs, and released after the suite: no cached plan outlives the run
            frame = frame.persist()
        try:
            result = sources.checkpoint(suite, local).run(
                batch_parameters={"dataframe": rows if local else frame},
                run_id=RunIdentifier(run_name=run_name),
            )
            results.extend(result.run_results)
            for validation_result in result.run_results.values():
                if validation_result.success:
                    passed.append(suite.name)
                else:
                    failures.append(_describe_failure(suite, validation_result, frame))
        finally:
            if not local:
                frame.unpersist(blocking=True)
        size = f"{len(rows)} rows, validated in pandas" if local else (
            f"more than {limit} rows, validated on Spark" if limit else "validated on Spark")
        log.info("%s: %s in %.1f s", suite.name, size, time.monotonic() - began)
    _prune_results(context, settings.gx_results_kept)
    # This run's result pages and the index (which lists what the store still holds, and drops the pages of pruned
    # results): the work stays the same however many runs came before.
    context.build_data_docs(resource_identifiers=results)
    if failures:
        raise QualityCheckFailed("\n".join(failures) + f"\nData Docs: {data_docs_index(settings)}")
    return passed


class _Sources:
    """The context's two dataframe sources: pandas for collected suites, Spark for the rest; one asset per suite in
    each, with a whole-dataframe batch definition. Each source has its own validation definition and checkpoint per
    suite (`<suite>` on Spark, `<suite> in pandas`): replacing a source drops its assets, and a definition naming an
    asset of the other source could no longer be read when it is updated."""

    def __init__(self, context: Any) -> None:
        self.context = context
        self.pandas = context.data_sources.add_or_update_pandas(name="window_tvf_pandas")
        # persist=False: GX would otherwise cache each DataFrame in the session and leave it there, and a cached
        # plan keeps reading the files a later insert_overwrite replaced (FAILED_READ_FILE.FILE_NOT_EXIST on the next
        # run in this process). run_suites caches each frame for its own suite only.
        self.spark = context.data_sources.add_or_update_spark(name="window_tvf_spark", persist=False)

    def checkpoint(self, suite: Suite, local: bool) -> Any:
        import great_expectations as gx

        source = self.pandas if local else self.spark
        asset = next((a for a in source.assets if a.name == suite.name), None) or source.add_dataframe_asset(
            name=suite.name
        )
        batch = next((b for b in asset.batch_definitions if b.name == "whole_table"), None)
        batch = batch or asset.add_batch_definition_whole_dataframe("whole_table")
        name = f"{suite.name} in pandas" if local else suite.name
        expectation_suite = self.context.suites.add_or_update(
            gx.ExpectationSuite(name=suite.name, expectations=suite.expectations)
        )
        validation = self.context.validation_definitions.add_or_update(
            gx.ValidationDefinition(name=name, data=batch, suite=expectation_suite)
        )
        return self.context.checkpoints.add_or_update(
            gx.Checkpoint(
                name=name,
                validation_definitions=[validation],
                actions=[],  # the Data Docs are built once per run, in run_suites
                result_format={
                    "result_format": "SUMMARY",
                    "partial_unexpected_count": SAMPLE_ROWS,
                    **({"unexpected_index_column_names": suite.row_id} if suite.row_id else {}),
                },
            )
        )


def _prune_results(context: Any, kept: int) -> int:
    """Keeps the newest `kept` validation results of each suite and removes the rest from the results store (the
    next Data Docs build removes their pages): without it the store, the Data Docs and the time to build their
    index grow with every run. Returns how many were removed."""
    store = context.validation_results_store
    by_suite: dict[str, list[Any]] = {}
    for key in store.list_keys():
        by_suite.setdefault(key.expectation_suite_identifier.name, []).append(key)
    removed = 0
    for keys in by_suite.values():
        for key in sorted(keys, key=lambda k: (k.run_id.run_time, k.run_id.run_name or ""), reverse=True)[kept:]:
            store.remove_key(key)
            removed += 1
    return removed


def validate_order_windows(start: datetime, end: datetime, settings: Settings | None = None) -> list[str]:
    """The order windows a run for [start, end) rewrote, and its arrivals."""
    settings = settings or Settings.from_environment()
    return run_suites(
        order_window_suites(Checked.interval(settings, start, end)),
        run_name=f"order windows {start:%Y-%m-%dT%H} to {end:%Y-%m-%dT%H}",
        settings=settings,
    )


def gate_event_rejections(start: datetime, end: datetime, settings: Settings | None = None) -> list[str]:
    """The rejection gate on the landing lines that arrived in [start, end) (stg_order_events, just loaded)."""
    settings = settings or Settings.from_environment()
    checked = Checked.interval(settings, start, end)
    group = Rejections.of(
        spark_session(settings),
        f"{settings.schema}.stg_order_events",
        checked.arrivals,
        f"event lines that arrived in [{start:%Y-%m-%d %H:%M}, {end:%H:%M})",
        share_without_lines=0.0,
    )
    return _rejection_gate("order_events.rejection_gate", [group], f"{start:%Y-%m-%dT%H}", settings)


def gate_price_rejections(snapshots: list[datetime], settings: Settings | None = None) -> list[str]:
    """The rejection gate on each price snapshot an interval loaded (stg_item_prices); an empty snapshot fails it."""
    settings = settings or Settings.from_environment()
    spark = spark_session(settings)
    groups = [
        Rejections.of(
            spark,
            f"{settings.schema}.stg_item_prices",
            f"valid_from = {timestamp_literal(snapshot)}",
            f"lines of the price snapshot of {snapshot:%Y-%m-%d %H:%M}",
            share_without_lines=1.0,
        )
        for snapshot in snapshots
    ]
    return _rejection_gate("item_prices.rejection_gate", groups, f"prices {min(snapshots):%Y-%m-%dT%H}", settings)


def quarantine_line(suite: str, group: Rejections, limit: float) -> str:
    """The task log's line for one group: how many lines were quarantined (kept out of the models, listed in
    fct_rejected_order_events / fct_rejected_item_prices) and why, against the gate's threshold. The reasons are
    the top TOP_REASONS; the rest are counted together, so the counts always add up to the rejected lines."""
    if not group.lines:
        verdict = "the gate fails that" if group.rejected_share > limit else "nothing to check"
        return f"{suite}: there are no {group.group} ({verdict})."
    if not group.rejected:
        return f"{suite}: {group.lines} {group.group}, none quarantined (the gate allows {limit:.0%})."
    counts = [part.rsplit(" ", 1)[-1] for part in group.top_reasons.split(", ") if part]
    listed = sum(int(n) for n in counts if n.isdigit())  # a log line never fails the task
    reasons = group.top_reasons + (f", other reasons {group.rejected - listed}" if group.rejected > listed else "")
    return (f"{suite}: {group.rejected} of {group.lines} {group.group} quarantined ({group.rejected_share:.1%}; the "
            f"gate allows {limit:.0%}), by reason: {reasons}.")


def _rejection_gate(suite: str, groups: list[Rejections], run: str, settings: Settings) -> list[str]:
    """Runs the gate's suite; on a failure raises RejectionGateFailed, whose message leads with what was rejected:
    the share against the threshold, the top reasons, sample lines, and what to do."""
    limit = settings.max_rejected_share
    for group in groups:
        log.info("%s", quarantine_line(suite, group, limit))
    try:
        return run_suites([rejection_gate_suite(suite, groups, limit)], run_name=f"rejection gate {run}", settings=settings)
    except QualityCheckFailed as failure:
        over = [group for group in groups if group.rejected_share > limit]
        lines = [
            (
                f"Rejection gate: {group.rejected} of {group.lines} {group.group} were rejected "
                f"({group.rejected_share:.1%}), more than WINDOW_TVF_MAX_REJECTED_SHARE={limit:g}."
                if group.lines
                else f"Rejection gate: there are no {group.group}: an empty price list prices nothing."
            )
            + f"\n  Top reasons: {group.top_reasons}\n  Sample lines: {group.sample_lines}"
            for group in over
        ]
        runbook = (
            "Nothing was built from these lines. Correct or remove the file (the rejected lines are in "
            "fct_rejected_order_events / fct_rejected_item_prices), then clear this task: docs/dirty_feeds.md."
        )
        raise RejectionGateFailed("\n".join([*lines, runbook, str(failure)])) from failure


def validate_documented_examples(settings: Settings | None = None) -> list[str]:
    settings = settings or Settings.from_environment()
    return run_suites(documented_example_suites(settings.schema), run_name="documented examples", settings=settings)
