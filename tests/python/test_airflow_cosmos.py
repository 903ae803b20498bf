"""window_tvf_dbt_tasks=per_model (dags/window_tvf_pipeline/model_tasks.py): each DAG renders one Airflow task per
dbt node of each build step, exactly dbt's own selection for that step, and the gates, the snapshot wait and the
Great Expectations checks stay tasks of their own in the coarse DAG's order (rendering only, about a minute). Then
under the real scheduler: a per-model deployment over a copy of the project with a broken model, its red task and
the retry that reruns it alone, and the per-model grid in headless Chromium (about 10 minutes more). Run by
`make test-airflow`: `make test` has no minute to spare under CI's 25."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from dbt_harness import REPO
from headless_chromium import find_chromium, open_page

from window_tvf_pipeline import tasks
from window_tvf_pipeline.config import Settings
from window_tvf_pipeline.dbt import dbt
from window_tvf_pipeline.model_tasks import (EVENT_VARS, PRICE_VARS, REFERENCE_EXCLUDE, VAR_NAMES, manifest_path,
                                             write_manifest)

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
    assert {"gate_price_rejections", "gate_event_rejections"} <= joined
    # of the windows step, the join waits for what it reads (dbt's lineage: the on-time events view and what feeds
    # it), not for the windows
    read = "build_event_windows.int_order_events_on_time_run"
    assert models("build_event_windows") & joined == {read} | (models("build_event_windows") & _upstream(dag, read))
    assert "build_event_windows.int_order_events.test" in joined
    assert models("build_event_windows") | {"gate_event_rejections"} <= _upstream(dag, "check_order_windows")
    assert not models("build_priced_orders") & _upstream(dag, "check_order_windows")


def test_reference_per_model_tasks_are_dbts_selection(manifest, monkeypatch) -> None:
    dag = _dags(monkeypatch, "per_model")["window_tvf_reference_examples"]
    args = ["--exclude", *REFERENCE_EXCLUDE]
    assert _rendered(dag, "build_examples", "DbtRunWatcherOperator") == _selected(args, "model")
    assert _rendered(dag, "build_examples", "DbtSeedWatcherOperator") == _selected(args, "seed")
    built = {t.task_id for t in dag.tasks if t.task_id.startswith("build_examples.")}
    assert built <= _upstream(dag, "check_documented_examples")


def test_a_model_task_pulls_its_interval_vars_once(manifest, monkeypatch) -> None:
    """Each model task's environment holds the interval's seven vars from its group's vars task, from one XCom pull
    (a request to the api-server) per task process, not one per var."""
    dag = _dags(monkeypatch, "per_model")["window_tvf_orders_hourly"]
    for task_id, vars_task in (("build_event_windows.int_order_events.run", EVENT_VARS),
                               ("load_price_snapshots.stg_item_prices.run", PRICE_VARS)):
        pulled = []

        class TaskInstance:
            run_id = f"scheduled__2026-11-29T10:00:00+00:00 {task_id}"

            def xcom_pull(self, task_ids: str) -> dict[str, str]:
                pulled.append(task_ids)
                return {f"WINDOW_TVF_VAR_{name.upper()}": f"{task_ids}: {name}" for name in VAR_NAMES}

        task = dag.get_task(task_id)
        env = task.render_template(task.env, {"ti": TaskInstance()})
        assert env == {f"WINDOW_TVF_VAR_{name.upper()}": f"{vars_task}: {name}" for name in VAR_NAMES}, task_id
        assert pulled == [vars_task], task_id


def test_model_and_test_tasks_start_in_the_triggerer(manifest, monkeypatch) -> None:
    """Every model and test sensor of both DAGs starts in the triggerer (Airflow's start_from_trigger, as the
    scheduler reads it from the serialized DAG) with the trigger of window_tvf_pipeline.cosmos_watcher; the producers,
    gates and checks start on a worker."""
    from airflow.serialization.serialized_objects import DagSerialization

    for dag in _dags(monkeypatch, "per_model").values():
        started = {t.task_id for t in DagSerialization.from_dict(DagSerialization.to_dict(dag)).tasks
                   if t.start_from_trigger}
        sensors = {t.task_id for t in dag.tasks if type(t).__name__.endswith("WatcherOperator")
                   and not t.task_id.endswith("dbt_producer_watcher")}
        assert started == sensors and len(sensors) > 30, dag.dag_id
        args = dag.get_task(sorted(sensors)[0]).start_trigger_args
        assert args.trigger_cls == "window_tvf_pipeline.cosmos_watcher.TriggererStartedWatcherTrigger", args
        assert args.next_method == "execute_complete" and args.trigger_kwargs["dag_id"] == dag.dag_id, args


class _TriggererTaskInstance:
    run_id = "scheduled__2026-11-29T10:00:00+00:00"
    task_id = "build_event_windows.int_order_events.run"
    map_index = -1

    def __init__(self, try_number: int) -> None:
        self.try_number = try_number


def _events(trigger) -> list:
    import asyncio

    async def collect() -> list:
        return [event async for event in trigger.run()]

    return asyncio.run(collect())


def test_the_trigger_ends_a_built_models_task_and_hands_the_rest_to_a_worker(monkeypatch) -> None:
    """A first try is Cosmos' own watching, for the run the triggerer names. A node that succeeded ends its task in the
    triggerer (TaskSuccessEvent), after its dbt line is read for the log; a failed node, or one with an Airflow asset
    to emit, goes to the worker with Cosmos' event. A retry: an event that runs Cosmos' sensor on a worker, where its
    retry rules are."""
    from airflow.triggers.base import TaskSuccessEvent, TriggerEvent
    from cosmos.operators._watcher.triggerer import WatcherTrigger

    from window_tvf_pipeline.cosmos_watcher import ON_A_WORKER, TriggererStartedWatcherTrigger

    read, status = [], {}

    async def xcom(self, key):
        read.append((self.run_id, self.producer_task_id, key))
        return status if key.endswith("_status") else None

    async def producer_state(self):
        return "running"

    monkeypatch.setattr(WatcherTrigger, "get_xcom_val", xcom)
    monkeypatch.setattr(WatcherTrigger, "_get_producer_task_status", producer_state)
    kwargs = {"model_unique_id": "model.window_tvf.int_order_events", "dag_id": "window_tvf_orders_hourly",
              "producer_task_id": "build_event_windows.dbt_producer_watcher", "poke_interval": 0.01,
              "is_test_sensor": False}

    def first_try(node_status: dict) -> list:
        status.clear()
        status.update(node_status)
        read.clear()
        trigger = TriggererStartedWatcherTrigger(**kwargs)
        trigger.task_instance = _TriggererTaskInstance(try_number=1)
        return _events(trigger)

    built = first_try({"status": "success", "outlet_uris": []})
    assert len(built) == 1 and isinstance(built[0], TaskSuccessEvent), built
    keys = [key for run_id, producer, key in read
            if (run_id, producer) == (_TriggererTaskInstance.run_id, kwargs["producer_task_id"])]
    assert {"model__window_tvf__int_order_events_status", "model__window_tvf__int_order_events_dbt_event"} <= set(
        keys) and len(keys) == len(read), read
    failed = first_try({"status": "error", "outlet_uris": []})
    assert [type(e) for e in failed] == [TriggerEvent] and failed[0].payload["reason"] == "node_failed", failed
    with_asset = first_try({"status": "success", "outlet_uris": ["spark://x"]})
    assert [e.payload for e in with_asset] == [{"status": "success", "outlet_uris": ["spark://x"]}], with_asset
    classpath, serialized = TriggererStartedWatcherTrigger(**kwargs).serialize()
    assert classpath == "window_tvf_pipeline.cosmos_watcher.TriggererStartedWatcherTrigger"
    assert TriggererStartedWatcherTrigger(**serialized).serialize() == (classpath, serialized)

    read.clear()
    retry = TriggererStartedWatcherTrigger(**kwargs)
    retry.task_instance = _TriggererTaskInstance(try_number=2)
    assert [e.payload for e in _events(retry)] == [{"status": ON_A_WORKER}] and read == []


def test_a_retrys_event_runs_cosmos_sensor_on_the_worker(manifest, monkeypatch) -> None:
    """On the worker, the retry's event runs Cosmos' own execute (its poke and retry rules); any other event goes to
    Cosmos' execute_complete."""
    from cosmos.operators.watcher import DbtRunWatcherOperator

    from window_tvf_pipeline.cosmos_watcher import ON_A_WORKER

    task = _dags(monkeypatch, "per_model")["window_tvf_orders_hourly"].get_task(
        "build_event_windows.int_order_events.run")
    ran = []
    monkeypatch.setattr(DbtRunWatcherOperator, "_execute_core", lambda self, context: ran.append("execute"))
    monkeypatch.setattr(DbtRunWatcherOperator, "execute_complete",
                        lambda self, context, event: ran.append(("complete", event["status"])))
    task.execute_complete({}, {"status": ON_A_WORKER})
    task.execute_complete({}, {"status": "success"})
    assert ran == ["execute", ("complete", "success")]


def test_the_step_after_a_group_waits_for_its_build_or_else_for_every_model_task(manifest, monkeypatch) -> None:
    """In both DAGs, what follows a group waits for the group's step_done: one_success over the group's producer (its
    dbt build succeeded: every node built and tested) and model_tasks_done, all_success over every model and test task
    of the group (after a failed build, their retries). Cosmos' producer_done stays; nothing else leaves the group."""
    from airflow.task.trigger_rule import TriggerRule

    from window_tvf_pipeline.model_tasks import MODEL_TASKS_DONE, STEP_DONE

    dags = _dags(monkeypatch, "per_model")
    hourly, reference = dags["window_tvf_orders_hourly"], dags["window_tvf_reference_examples"]
    groups = {(hourly, "build_staged_events"): "gate_event_rejections",
              (hourly, "load_price_snapshots"): "gate_price_rejections",
              (hourly, "build_event_windows"): "check_order_windows",
              (reference, "build_examples"): "check_documented_examples"}
    for (dag, group), after in groups.items():
        step_done, models_done = dag.get_task(f"{group}.{STEP_DONE}"), dag.get_task(f"{group}.{MODEL_TASKS_DONE}")
        assert (step_done.trigger_rule, models_done.trigger_rule) == (TriggerRule.ONE_SUCCESS, TriggerRule.ALL_SUCCESS)
        producer = f"{group}.dbt_producer_watcher"
        assert step_done.upstream_task_ids == {producer, models_done.task_id}, group
        model_tasks = {t.task_id for t in dag.tasks if t.task_id.startswith(f"{group}.")} - {
            producer, f"{producer}_done", step_done.task_id, models_done.task_id}
        assert len(model_tasks) > 2 and model_tasks <= _upstream(dag, models_done.task_id), group
        leaving = {t.task_id for t in dag.get_task(after).upstream_list if t.task_id.startswith(f"{group}.")}
        assert leaving == {step_done.task_id, f"{producer}_done"}, (group, leaving)


def test_the_producer_tells_cosmos_only_the_events_it_acts_on(manifest, monkeypatch) -> None:
    """Each producer is window_tvf_pipeline.cosmos_watcher's: Cosmos' dbt callback gets the events above debug level,
    NodeFinished and dbt's errors, and no longer a node's start, compiling and executing steps or its SQL (each of
    the first three an XCom push, each event a JSON conversion). What it gets, it handles as Cosmos does: the node's
    status and dbt event pushed to XCom."""
    from cosmos.operators.local import DbtLocalBaseOperator
    from dbt.adapters.events.types import SQLQuery
    from dbt.events.types import (LogModelResult, MainReportVersion, NodeCompiling, NodeExecuting, NodeFinished,
                                  NodeStart, RunResultError)
    from dbt_common.events.base_types import EventLevel, msg_from_base_event

    node = {"unique_id": "model.window_tvf.int_order_events", "node_status": "started", "resource_type": "model"}
    ended = {**node, "node_status": "success"}
    events = [
        msg_from_base_event(MainReportVersion(version="1.12.0", log_version=3)),
        msg_from_base_event(NodeStart(node_info=node)),
        msg_from_base_event(NodeCompiling(node_info=node)),
        msg_from_base_event(SQLQuery(conn_name="x", sql="select 1", node_info=node)),
        msg_from_base_event(NodeExecuting(node_info=node)),
        msg_from_base_event(LogModelResult(description="model int_order_events", status="OK", index=1, total=1,
                                           execution_time=0.1, node_info=ended), level=EventLevel.INFO),
        msg_from_base_event(NodeFinished(node_info=ended)),
        msg_from_base_event(RunResultError(msg="an error", node_info=node), level=EventLevel.ERROR),
    ]
    pushed = []

    class TaskInstance:
        def xcom_push(self, key: str, value: Any) -> None:
            pushed.append(key)

        def xcom_pull(self, key: str, **kwargs: Any) -> None:
            return None

    def dbt_runner(self, command, env, cwd, **kwargs):  # what dbtRunner does with its callbacks
        for event in events:
            for callback in self._dbt_runner_callbacks:
                callback(event)

    monkeypatch.setattr(DbtLocalBaseOperator, "run_dbt_runner", dbt_runner)
    for dag in _dags(monkeypatch, "per_model").values():
        producers = [t for t in dag.tasks if t.task_id.endswith(".dbt_producer_watcher")]
        assert producers and {type(t).__module__ for t in producers} == {"window_tvf_pipeline.cosmos_watcher"}
    producer = producers[0]
    producer.run_dbt_runner(["build"], {}, str(REPO), context={"ti": TaskInstance()})
    # MainReportVersion: Cosmos' startup events; LogModelResult: the status; NodeFinished: the node's dbt event and
    # the status; RunResultError: the dbt event (under the node's keys, as Cosmos names them)
    key = "model__window_tvf__int_order_events"
    assert pushed == ["dbt_startup_events", f"{key}_status", f"{key}_dbt_event", f"{key}_status",
                      f"{key}_dbt_event"], pushed


def test_coarse_is_the_default(monkeypatch) -> None:
    monkeypatch.delenv("AIRFLOW_VAR_WINDOW_TVF_DBT_TASKS", raising=False)
    assert Settings.from_environment().dbt_tasks == "coarse"
    dags = _dags(monkeypatch, "coarse")
    assert {t.task_id for t in dags["window_tvf_orders_hourly"].tasks} == {
        "build_event_windows", "wait_for_price_snapshot", "load_price_snapshots", "build_priced_orders",
        "check_order_windows"}


# A model broken by a commit, under the real scheduler: the deployment of `make airflow AIRFLOW_ARGS="--dbt-tasks
# per_model"` over a copy of the project (the test edits the copy, never the checkout), one hourly interval.
BROKEN_MODEL = "fct_early_order_events"  # a view at the end of the event branch: no model reads it
BROKEN_FILE = Path("models") / "order_pipeline" / f"{BROKEN_MODEL}.sql"
BROKEN_COLUMN = "arrival_status_broken_by_the_test"
PER_MODEL_GRID = REPO / "docs" / "airflow_grid_per_model.png"
EXPAND_ALL = """(() => { const button = [...document.querySelectorAll('button')]
    .find(b => b.getAttribute('aria-label') === 'Expand all task groups');
    if (button) { button.click(); return true; } return false; })()"""
START = """import sys
from pathlib import Path
sys.path.insert(0, sys.argv[1])
from airflow_local import LocalAirflow, start
start(LocalAirflow(home=Path(sys.argv[2]), hours=1, feed_hours=0, run_reference=False, dbt_tasks="per_model"))
"""


def _copy_of_the_project(to: Path) -> Path:
    """The checkout's files as they are (committed or not, ignored ones left out), as a teammate's clone would be."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=REPO,
                            check=True, capture_output=True).stdout.decode().split("\0")
    for name in filter(None, listed):
        if (REPO / name).is_file():
            (to / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO / name, to / name)
    return to


@pytest.fixture(scope="module")
def per_model_deployment(tmp_path_factory: pytest.TempPathFactory) -> Any:
    sys.path.insert(0, str(REPO / "scripts"))
    from airflow_local import Running

    project = _copy_of_the_project(tmp_path_factory.mktemp("checkout") / "window-tvf")
    model = project / BROKEN_FILE
    fixed = model.read_text()
    assert "where arrival_status = 'early'" in fixed
    model.write_text(fixed.replace("where arrival_status =", f"where {BROKEN_COLUMN} ="))
    home = project / ".airflow" / "deployment"
    control = [sys.executable, str(project / "scripts" / "airflow_local.py")]
    started = subprocess.run([sys.executable, "-c", START, str(project / "scripts"), str(home)],
                             capture_output=True, text=True, timeout=900)
    try:
        assert started.returncode == 0, started.stderr[-3000:]
        yield Running.load(home / "deployment.json"), model, fixed
    finally:
        subprocess.run([*control, "stop", "--home", str(home)], capture_output=True, timeout=300)


def _task_instances(running: Any) -> dict[str, dict]:
    from airflow_local import HOURLY_DAG, dag_runs

    runs = dag_runs(running, HOURLY_DAG, running.token())
    return runs[0]["tasks"] if runs else {}


def _attempt_log_path(running: Any, instance: dict, attempt: int) -> Path:
    return (running.home / "logs" / f"dag_id={instance['dag_id']}" / f"run_id={instance['dag_run_id']}"
            / f"task_id={instance['task_id']}" / f"attempt={attempt}.log")


def _attempt_log(running: Any, instance: dict, attempt: int) -> str:
    return _attempt_log_path(running, instance, attempt).read_text()


def test_a_broken_model_is_its_own_red_task_and_its_retry_reruns_only_it(per_model_deployment) -> None:
    """The commit's model fails in the build step's one `dbt build`: its own task turns red (try 1) with the model's
    Spark error in its log, and dbt's other nodes stay green. The fix lands while the task waits for its retry. A
    retry while the producer still builds reads the same failed result; the first retry after it has finished runs
    `dbt run --select <model>` alone (Cosmos' fallback) and succeeds, and the interval ends green. The producer's
    own retry skips (Cosmos' watcher does not rerun the build); no other task takes a second try."""
    from airflow_local import HOURLY_DAG, _wait, wait_for_runs

    running, model, fixed = per_model_deployment
    scheduler_log = running.home / "services" / "scheduler.log"
    task_id = f"build_event_windows.{BROKEN_MODEL}_run"  # a model without tests: one task, `<model>_run`
    producer = "build_event_windows.dbt_producer_watcher"

    def failed_once() -> dict | None:
        instance = _task_instances(running).get(task_id)
        return instance if instance and instance["state"] in ("up_for_retry", "failed") else None

    red = _wait(failed_once, f"{task_id} to fail", running, scheduler_log, timeout=1800)
    model.write_text(fixed)  # the fix, committed while the task waits for its retry (30 s or more)
    assert red["state"] == "up_for_retry", red
    first = _attempt_log(running, red, 1)
    assert BROKEN_COLUMN in first and "UNRESOLVED_COLUMN" in first, first[-3000:]

    run = wait_for_runs(running, HOURLY_DAG, 1, timeout=1800)[0]
    instances = run["tasks"]
    states = {t: i["state"] for t, i in instances.items()}
    assert run["state"] == "success", {t: state for t, state in states.items() if state != "success"}
    assert states == {t: "skipped" if t == producer else "success" for t in instances}
    assert {t for t, i in instances.items() if i["try_number"] > 1} == {task_id, producer}
    tries = instances[task_id]["try_number"]
    last = _attempt_log(running, instances[task_id], tries)
    # Cosmos' fallback: "Retry attempt #N - Running model '<unique id>' ...", then dbt run of that model alone
    assert f"Running model 'model.window_tvf.{BROKEN_MODEL}'" in last, last[-3000:]
    assert f"'run', '--select', 'fqn:window_tvf.order_pipeline.{BROKEN_MODEL}'" in last, last[-3000:]
    assert "Completed successfully" in last and BROKEN_COLUMN not in last, last[-3000:]
    # the attempts between the first and the last read the producer's state before it had finished for good: still
    # building ("is still running"), or failed and waiting for its own retry, which skips ("is still up_for_retry")
    for attempt in range(2, tries):
        between = _attempt_log(running, instances[task_id], attempt)
        waited = rf"Try #{attempt} but producer '{re.escape(producer)}' is still (running|up_for_retry)"
        assert re.search(waited, between), between[-3000:]
    # the build failed, so what follows the windows step waited for every model task, the broken one's retry
    # included (model_tasks.hand_over_on_the_build); the priced orders, which read none of it, did not
    # (model_tasks.after_the_nodes_it_reads)
    fixed_at = datetime.fromisoformat(instances[task_id]["end_date"])
    started = lambda t: datetime.fromisoformat(instances[t]["start_date"])  # noqa: E731
    assert started("build_event_windows.step_done") >= fixed_at and started("check_order_windows") > fixed_at
    assert started("build_priced_orders.dbt_producer_watcher") < fixed_at
    # every other model of the step ran once, in the producer's build
    windows = [t for t in instances if t.startswith("build_event_windows.") and t not in (task_id, producer)]
    assert len(windows) > 30 and all(instances[t]["try_number"] == 1 for t in windows)
    # and its task started and ended in the triggerer (cosmos_watcher.py): a trigger's log, no worker's
    for t in windows:
        if t.endswith(("run", "test")):
            attempt = _attempt_log_path(running, instances[t], 1)
            assert not attempt.exists() and list(attempt.parent.glob("attempt=1.log.trigger.*.log")), t


@pytest.mark.skipif(find_chromium() is None, reason="no chromium on PATH (Debian: apt-get install -y chromium)")
def test_the_per_model_grid(per_model_deployment) -> None:
    """The hourly DAG's grid with a task per model (docs/airflow_grid_per_model.png), after the run above."""
    from spark_cluster import free_port

    running, _, _ = per_model_deployment
    with open_page(f"{running.api_url}/dags/window_tvf_orders_hourly", {"_token": running.token()},
                   free_port()) as page:
        page.wait_for("document.querySelectorAll('a[data-testid^=\"grid-\"]').length >= 10")  # groups collapsed
        page.wait_for(EXPAND_ALL)
        cells = page.wait_for("document.querySelectorAll('a[data-testid^=\"grid-\"]').length > 30 && "
                              "document.querySelectorAll('a[data-testid^=\"grid-\"]').length")
        page.screenshot(PER_MODEL_GRID)
    assert cells > 30
    assert PER_MODEL_GRID.stat().st_size > 10_000
