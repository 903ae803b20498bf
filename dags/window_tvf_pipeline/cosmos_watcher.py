"""Cosmos' watcher-mode model tasks started, and when their node builds ended, by Airflow's triggerer instead of a
worker (`start_in_the_triggerer`), and its producer told only the dbt events Cosmos acts on
(`DbtProducerWatcherOperator`, below); model_tasks.dbt_group applies both to each group (`adapt`).

In Cosmos' watcher mode each model (and each model's tests) is a sensor: its first try starts a task process on a
worker, which parses the DAG file, finds the producer's build still running and defers to a trigger that polls the
producer's XCom; when the model is done, the task runs once more on a worker to log the model's dbt event and end.
Here the scheduler defers a first try straight to the trigger, and a trigger whose node succeeded ends the task
itself (Airflow's TaskSuccessEvent) after logging what Cosmos' sensor would: no task process at all for a model that
builds, where Cosmos runs two (41 model and test tasks an hourly interval, each process about a second of CPU beside
the Spark server on a 2-core machine). A failed node's event still goes to a worker, which logs the node's error
and fails the task, as a node with an Airflow asset to emit does. (The worker would also show the model's compiled
SQL in the Rendered Template tab; in this deployment Cosmos never has it: dbt writes it under DBT_TARGET_PATH, not
the temporary copy of the project where Cosmos looks, and says so in the producer's log.) No worker defers a first try,
so Airflow 3.3's race between a deferral and a trigger that fires within seconds of it (docs/airflow_deployment.md)
cannot strike there, and the triggers poll every POKE_SECONDS rather than Cosmos' 10.

A retry keeps Cosmos' own rules: its trigger hands the task back to a worker at once, where Cosmos' sensor decides
as it does on any retry (its fallback `dbt run --select <model>` once the producer has finished, else it waits for the
producer again). The triggerer imports this module: scripts/airflow_local.py puts dags/ on its path. The classes
keep Cosmos' names: the grid and a task's details show them as Cosmos does."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

from airflow.triggers.base import StartTriggerArgs, TaskSuccessEvent, TriggerEvent
from cosmos.listeners.dag_run_listener import EventStatus
from cosmos.operators import watcher
from cosmos.operators._watcher.base import _DBT_ERROR_EVENTS_TYPES
from cosmos.operators._watcher.state import _log_dbt_event, get_dbt_event_xcom_key
from cosmos.operators._watcher.triggerer import WatcherTrigger
from cosmos.operators.local import DbtLocalBaseOperator

# The trigger's event for a retry: run the sensor's first-try logic on a worker (Cosmos' retry rules live there).
ON_A_WORKER = "resume_on_a_worker"
# How often a trigger reads its node's status from the producer's XComs (Cosmos' default: 10 s). A model's task turns
# green within this after dbt has built it; the step after the group waits for the build, not for these tasks
# (model_tasks.hand_over_on_the_build). 10 s made no difference to the triggerer's CPU (2026-12-01).
POKE_SECONDS = 5.0


class TriggererStartedWatcherTrigger(WatcherTrigger):
    """Cosmos' WatcherTrigger, made by the scheduler before any worker ran the task: the run and map index come from
    the task instance the triggerer gives it (not known when the DAG is serialized, so not among its arguments)."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("run_id", "")  # set in run(), from the task instance
        kwargs.setdefault("map_index", None)
        super().__init__(**kwargs)

    def serialize(self) -> tuple[str, dict[str, Any]]:
        _, kwargs = super().serialize()
        return f"{__name__}.{type(self).__name__}", kwargs

    async def run(self) -> AsyncIterator[TriggerEvent]:
        ti = self.task_instance
        self.run_id, self.map_index = ti.run_id, ti.map_index
        if ti.try_number > 1:
            yield TriggerEvent({"status": ON_A_WORKER})  # type: ignore[no-untyped-call]
            return
        async for event in super().run():
            if self._ends_here(event.payload):
                await self._log_node()
                yield TaskSuccessEvent()
            else:
                yield event
            return

    @staticmethod
    def _ends_here(payload: dict[str, Any]) -> bool:
        """A node that succeeded with nothing left for a worker to do (no Airflow asset to emit) ends its task here:
        a failure (its error logged, the task red) and a skip go to the worker as Cosmos has them."""
        return payload.get("status") == EventStatus.SUCCESS and not payload.get("outlet_uris")

    async def _log_node(self) -> None:
        """What Cosmos' sensor logs on a worker for a finished node: dbt's line for it and its status and times."""
        _log_dbt_event(await self.get_xcom_val(get_dbt_event_xcom_key(self.model_unique_id)))


class _StartedByTheTriggerer:
    """The sensor side: a retry's event runs Cosmos' own execute (its poke, with its retry rules, or its deferral)."""

    def execute_complete(self, context: Any, event: dict[str, Any]) -> None:
        if event.get("status") == ON_A_WORKER:
            return self._execute_core(context)  # type: ignore[attr-defined]
        return super().execute_complete(context, event)  # type: ignore[misc]


class DbtRunWatcherOperator(_StartedByTheTriggerer, watcher.DbtRunWatcherOperator):
    pass


class DbtTestWatcherOperator(_StartedByTheTriggerer, watcher.DbtTestWatcherOperator):
    pass


class DbtSeedWatcherOperator(_StartedByTheTriggerer, watcher.DbtSeedWatcherOperator):
    pass


STARTED_BY_THE_TRIGGERER = {
    watcher.DbtRunWatcherOperator: DbtRunWatcherOperator,
    watcher.DbtTestWatcherOperator: DbtTestWatcherOperator,
    watcher.DbtSeedWatcherOperator: DbtSeedWatcherOperator,
}

# Cosmos' producer hands every dbt event to its callback (`_event_callback`, in its run_dbt_runner), on the dbt
# thread that fired it: the event as JSON, then an XCom push (a request to the api-server, 13-25 ms here) for each of
# a node's NodeStart, NodeCompiling, NodeExecuting and NodeFinished, each overwriting the one before under the same
# key, which Cosmos reads only once the node has ended. Some 23 events a node, 19 of them at debug level (every SQL
# statement, connection and timing line); a node took 0.1 s longer than in a coarse task (2026-12-01, dbt's own log).
_COSMOS_CALLBACK = "DbtProducerWatcherOperator.run_dbt_runner.<locals>._event_callback"


def read_by_cosmos(event: Any) -> bool:
    """The dbt events Cosmos' producer callback acts on: every event above debug level (dbt's lines in the producer's
    log, a node's result with its status, the version and adapter lines, a skip), a node's NodeFinished (its status and
    times for the node's task, and its error) and dbt's error events. The other debug events (a node's start,
    compiling and executing steps, each SQL statement) reach dbt's log file as before, and the producer's task log
    only under Airflow's debug level."""
    info = event.info
    return info.level != "debug" or info.name == "NodeFinished" or info.name in _DBT_ERROR_EVENTS_TYPES


def _only_read_by_cosmos(callback: Callable[[Any], None]) -> Callable[[Any], None]:
    def filtered(event: Any) -> None:
        if read_by_cosmos(event):
            callback(event)

    filtered.__qualname__ = f"{callback.__qualname__}.read_by_cosmos"
    return filtered


class _ProducerEvents(DbtLocalBaseOperator):
    """Between Cosmos' producer (which adds its callback) and dbtRunner (which calls it): Cosmos' callback wrapped in
    read_by_cosmos."""

    def run_dbt_runner(self, command: list[str], env: dict[str, str], cwd: str, **kwargs: Any) -> Any:
        self._dbt_runner_callbacks = [
            _only_read_by_cosmos(callback) if getattr(callback, "__qualname__", "") == _COSMOS_CALLBACK else callback
            for callback in self._dbt_runner_callbacks or []
        ]
        return super().run_dbt_runner(command, env, cwd, **kwargs)


class DbtProducerWatcherOperator(watcher.DbtProducerWatcherOperator, _ProducerEvents):
    """Cosmos' producer whose dbt callback sees only the events it acts on (read_by_cosmos)."""


def adapt(tasks: list[Any]) -> None:
    """What this module changes in a Cosmos group's tasks: each producer becomes DbtProducerWatcherOperator above
    (its dbt callback told only what Cosmos acts on), and each deferrable model, test and seed sensor starts in the
    triggerer (start_in_the_triggerer). Another kind of node (a snapshot, a source) stays as Cosmos made it."""
    for task in tasks:
        if type(task) is watcher.DbtProducerWatcherOperator:
            task.__class__ = DbtProducerWatcherOperator  # built by Cosmos' graph; only run_dbt_runner differs
        elif type(task) in STARTED_BY_THE_TRIGGERER and task.deferrable:
            start_in_the_triggerer(task)


def start_in_the_triggerer(task: Any) -> None:
    """Makes one of Cosmos' model, test and seed sensors start in the triggerer."""
    task.__class__ = STARTED_BY_THE_TRIGGERER[type(task)]  # built with Cosmos' class; only execute_complete differs
    task.start_from_trigger = True
    task.poke_interval = POKE_SECONDS
    task.start_trigger_args = StartTriggerArgs(
        trigger_cls=f"{__name__}.{TriggererStartedWatcherTrigger.__name__}",
        trigger_kwargs={
            "model_unique_id": task.model_unique_id,
            "producer_task_id": task.producer_task_id,
            "dag_id": task.dag_id,
            "poke_interval": POKE_SECONDS,
            "is_test_sensor": task.is_test_sensor,
        },
        next_method="execute_complete",
        timeout=task.execution_timeout,
    )
