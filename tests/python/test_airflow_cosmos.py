"""window_tvf_dbt_tasks=per_model (dags/window_tvf_pipeline/model_tasks.py): each DAG renders one Airflow task per
dbt node of each build step, exactly dbt's own selection for that step, and the gates, the snapshot wait and the
Great Expectations checks stay tasks of their own in the coarse DAG's order. Renders only (no dbt build: the runs
are tests/python/test_airflow_deployment.py's, under the real scheduler). Run by `make test-airflow` (a dbt parse
and a `dbt ls` per build step, about a minute: `make test` has no minute to spare under CI's 25)."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from dbt_harness import REPO

from window_tvf_pipeline import tasks
from window_tvf_pipeline.config import Settings
from window_tvf_pipeline.dbt import dbt
from window_tvf_pipeline.model_tasks import REFERENCE_EXCLUDE, manifest_path, write_manifest

pytestmark = pytest.mark.skipif(os.environ.get("WINDOW_TVF_TEST_AIRFLOW") != "1",
                                reason="Airflow's per-model rendering (about a minute): run it with make test-airflow")

_SUFFIX = re.compile(r"[._](run|seed)$")


@pytest.fixture(scope="module")
def manifest() -> Path:
    return write_manifest(Settings.from_environment())


def _dags(monkeypatch: pytest.MonkeyPatch, mode: str) -> dict:
    from airflow.dag_processing.dagbag import DagBag

    monkeypatch.setenv("AIRFLOW_VAR_WINDOW_TVF_DBT_TASKS", mode)
    bag = DagBag(dag_folder=str(REPO / "dags"))
    assert bag.import_errors == {}
    return bag.dags


def _selected(args: list[str], resource: str) -> set[str]:
    """The nodes of one resource type that `dbt build <args>` builds, by dbt's own selector."""
    settings = Settings.from_environment()
    target = str(manifest_path(settings).parent)
    listed = dbt(["ls", "--resource-type", resource, "--output", "json", "--output-keys", "name",
                  "--target-path", target, *args], settings=settings)
    return {json.loads(line)["name"] for line in listed}


def _rendered(dag, group: str, operator: str) -> set[str]:
    return {_SUFFIX.sub("", t.task_id.removeprefix(f"{group}.")) for t in dag.tasks
            if t.task_id.startswith(f"{group}.") and type(t).__name__ == operator}


def _upstream(dag, task_id: str) -> set[str]:
    return {t.task_id for t in dag.get_task(task_id).get_flat_relatives(upstream=True)}


def test_hourly_per_model_tasks_are_dbts_selection_in_order(manifest, monkeypatch) -> None:
    dag = _dags(monkeypatch, "per_model")["window_tvf_orders_hourly"]
    select, exclude = tasks.event_window_selection(Settings.from_environment())
    steps = {
        "build_staged_events": ["--select", *tasks.STAGED_EVENT_MODELS.split()],
        "build_event_windows": ["--select", *select, "--exclude", *exclude],
        "load_price_snapshots": ["--select", *tasks.PRICE_MODELS.split()],
        "build_priced_orders": ["--select", *tasks.JOIN_MODELS.split()],
    }
    for group, args in steps.items():
        assert _rendered(dag, group, "DbtRunWatcherOperator") == _selected(args, "model"), group
    models = lambda group: {t.task_id for t in dag.tasks if t.task_id.startswith(f"{group}.")}  # noqa: E731
    assert len(models("build_event_windows")) > 30
    # gate after every staged node, windows after the gate; the snapshot wait before the prices, their gate after
    assert models("build_staged_events") <= _upstream(dag, "gate_event_rejections")
    assert {"gate_event_rejections", "event_interval_vars"} <= _upstream(dag, "build_event_windows.dbt_producer_watcher")
    assert {"wait_for_price_snapshot", "price_interval_vars"} <= _upstream(dag, "load_price_snapshots.dbt_producer_watcher")
    assert models("load_price_snapshots") <= _upstream(dag, "gate_price_rejections")
    joined = _upstream(dag, "build_priced_orders.dbt_producer_watcher")
    assert {"gate_price_rejections", "gate_event_rejections"} | models("build_event_windows") <= joined
    assert models("build_event_windows") | {"gate_event_rejections"} <= _upstream(dag, "check_order_windows")
    assert not models("build_priced_orders") & _upstream(dag, "check_order_windows")


def test_reference_per_model_tasks_are_dbts_selection(manifest, monkeypatch) -> None:
    dag = _dags(monkeypatch, "per_model")["window_tvf_reference_examples"]
    args = ["--exclude", *REFERENCE_EXCLUDE]
    assert _rendered(dag, "build_examples", "DbtRunWatcherOperator") == _selected(args, "model")
    assert _rendered(dag, "build_examples", "DbtSeedWatcherOperator") == _selected(args, "seed")
    built = {t.task_id for t in dag.tasks if t.task_id.startswith("build_examples.")}
    assert built <= _upstream(dag, "check_documented_examples")


def test_coarse_is_the_default(monkeypatch) -> None:
    monkeypatch.delenv("AIRFLOW_VAR_WINDOW_TVF_DBT_TASKS", raising=False)
    assert Settings.from_environment().dbt_tasks == "coarse"
    dags = _dags(monkeypatch, "coarse")
    assert {t.task_id for t in dags["window_tvf_orders_hourly"].tasks} == {
        "build_event_windows", "wait_for_price_snapshot", "load_price_snapshots", "build_priced_orders",
        "check_order_windows"}
