"""The Great Expectations results of a year of hourly runs must not pile up: each run keeps the newest
`gx_results_kept` results per suite, builds only its own Data Docs pages and the index, and the pages of pruned
results leave the site. Real GX file context, real Spark frames."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import great_expectations.expectations as gxe
import pytest

from window_tvf_pipeline.config import Settings
from window_tvf_pipeline.quality import QualityCheckFailed, data_docs_index, run_suites
from window_tvf_pipeline.suites import Suite


def suite(values: list[int]) -> Suite:
    return Suite(
        "retention.small_numbers",
        lambda spark: spark.createDataFrame([(v,) for v in values], "n int"),
        [gxe.ExpectColumnValuesToBeBetween(column="n", min_value=0, max_value=9)],
        row_id=["n"],
    )


def stored(gx_dir: Path) -> list[str]:
    """The run names of the results the store holds for the suite (one JSON file per result)."""
    files = (gx_dir / "gx" / "uncommitted" / "validations" / "retention" / "small_numbers").rglob("*.json")
    return sorted(json.loads(f.read_text())["meta"]["run_id"]["run_name"] for f in files)


def pages(gx_dir: Path) -> int:
    site = gx_dir / "gx" / "uncommitted" / "data_docs" / "local_site" / "validations" / "retention" / "small_numbers"
    return len(list(site.rglob("*.html")))


def test_each_run_keeps_the_newest_results_and_their_pages_only(spark: Any, tmp_path: Path) -> None:
    settings = replace(Settings.from_environment(), gx_dir=tmp_path / "gx_context", gx_results_kept=2)
    for n in range(4):
        assert run_suites([suite([1, 2, 3])], run_name=f"run {n}", settings=settings) == ["retention.small_numbers"]
    assert stored(settings.gx_dir) == ["run 2", "run 3"]
    assert pages(settings.gx_dir) == 2
    index = Path(data_docs_index(settings)).read_text()
    assert "run 3" in index and "run 0" not in index and "run 1" not in index

    with pytest.raises(QualityCheckFailed, match=r"(?s)retention.small_numbers.*1 of 3 rows unexpected"):
        run_suites([suite([1, 2, 30])], run_name="run 4", settings=settings)
    assert stored(settings.gx_dir) == ["run 3", "run 4"]  # a failed run's result is kept, and shown
    assert pages(settings.gx_dir) == 2



def test_pandas_and_spark_validation_report_the_same(spark: Any, tmp_path: Path) -> None:
    """A suite within WINDOW_TVF_GX_LOCAL_ROWS is collected and validated in pandas, a larger one on Spark: the same
    expectations give the same verdicts, counts and sample rows either way (3 rows; a limit of 3: pandas, 2 or 0:
    Spark)."""
    base = replace(Settings.from_environment(), gx_dir=tmp_path / "gx_context")
    messages, sources = {}, {}
    for local_rows in (3, 2, 0):
        settings = replace(base, gx_local_rows=local_rows)
        assert run_suites([suite([1, 2, 3])], run_name=f"passes {local_rows}", settings=settings) == [
            "retention.small_numbers"]
        with pytest.raises(QualityCheckFailed) as failed:
            run_suites([suite([1, 30, 40])], run_name=f"fails {local_rows}", settings=settings)
        messages[local_rows] = str(failed.value)
        sources[local_rows] = validated_by(base.gx_dir, f"fails {local_rows}")
    assert sources == {3: "window_tvf_pandas", 2: "window_tvf_spark", 0: "window_tvf_spark"}
    assert messages[3] == messages[2] == messages[0], messages
    assert "2 of 3 rows unexpected; sample failing rows: [{'n': 30}, {'n': 40}]" in messages[3], messages[3]


def validated_by(gx_dir: Path, run_name: str) -> str:
    """The data source of the stored result of a run."""
    files = (gx_dir / "gx" / "uncommitted" / "validations" / "retention" / "small_numbers").rglob("*.json")
    meta = next(m for m in (json.loads(f.read_text())["meta"] for f in files) if m["run_id"]["run_name"] == run_name)
    return meta["active_batch_definition"]["datasource_name"]


def test_one_process_at_a_time_holds_the_context(tmp_path: Path) -> None:
    """Two tasks of an interval can validate at once (the two rejection gates) and a run writes the context's files:
    while one holds the context (open_context), another's lock on it waits; after, it is free. flock locks belong to
    an open file, so a second open in this process stands for the other task's."""
    import fcntl

    from window_tvf_pipeline.quality import CONTEXT_LOCK, open_context

    settings = replace(Settings.from_environment(), gx_dir=tmp_path / "gx_context")

    def other_task_locks() -> bool:
        with open(settings.gx_dir / CONTEXT_LOCK, "w") as other:
            try:
                fcntl.flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                return False
            return True

    with open_context(settings) as context:
        assert context.root_directory and not other_task_locks()
    assert other_task_locks()
