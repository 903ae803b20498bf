"""One Airflow task per dbt model (astronomer-cosmos, watcher execution mode): each dbt build step of the coarse DAGs
becomes a DbtTaskGroup whose producer task runs that step's single `dbt build` (in-process, dbtRunner) while one
sensor task per model (and per test) turns green or red with that node's result and log.

Chosen per deployment by the Airflow Variable `window_tvf_dbt_tasks` (`coarse`, the default, or `per_model`), read
when a DAG file is parsed. What a retry reruns: a failed model's task, retried, runs `dbt run --select <model>` itself
(Cosmos' fallback for a consumer whose producer has finished); the producer is never rerun by a retry (it skips).

The interval's vars reach dbt as the coarse tasks pass them (window_tvf.scheduled_var's WINDOW_TVF_VAR_<NAME>
environment variables): a task before each group computes them (tasks.interval_env) and the group's env is templated
from its XCom, so a retried model task gets the same vars."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from window_tvf_pipeline.config import Settings

# The task that computes the interval's vars for the groups that follow it (one before the events, one after the
# price snapshot has landed: the price files are listed then).
EVENT_VARS = "event_interval_vars"
PRICE_VARS = "price_interval_vars"
VAR_NAMES = ["data_interval_start", "data_interval_end", "allowed_lateness", "deduplication_ttl",
             "landing_event_files", "landing_price_files", "price_snapshots_from"]


def manifest_path(settings: Settings) -> Path:
    """The manifest the per-model DAGs are rendered from: WINDOW_TVF_DBT_MANIFEST (make airflow copies its start's
    parse there), else write_manifest's, apart from dbt's own target/ which every dbt run rewrites."""
    if os.environ.get("WINDOW_TVF_DBT_MANIFEST"):
        return Path(os.environ["WINDOW_TVF_DBT_MANIFEST"])
    return settings.dbt_project_dir / ".airflow" / "cosmos" / "target" / "manifest.json"


def write_manifest(settings: Settings | None = None) -> Path:
    """`dbt parse` into manifest_path: run by the deployment (scripts/airflow_local.py) before the DAGs are parsed
    and after the project changes. Rendering from a manifest keeps a DAG file's parse under a second; Cosmos' dbt ls
    load ran past Airflow's 30 s import timeout here (a cold dbt parse of the project per group)."""
    from window_tvf_pipeline.dbt import dbt

    settings = settings or Settings.from_environment()
    dbt(["parse", "--target-path", str(manifest_path(settings).parent)], settings=settings)
    return manifest_path(settings)


def _cosmos_environment(settings: Settings) -> None:
    """No telemetry (the deployment has no route out); Cosmos' dbt ls cache under the project's .airflow."""
    os.environ.setdefault("AIRFLOW__COSMOS__ENABLE_TELEMETRY", "False")
    os.environ.setdefault("AIRFLOW__COSMOS__CACHE_DIR", str(settings.dbt_project_dir / ".airflow" / "cosmos"))


def interval_env_template(vars_task: str) -> dict[str, str]:
    """The group's environment: each interval var from the vars task's XCom (rendered when each task runs)."""
    return {
        f"WINDOW_TVF_VAR_{name.upper()}": "{{ interval_var(ti, '%s', 'WINDOW_TVF_VAR_%s') }}" % (vars_task, name.upper())
        for name in VAR_NAMES
    }


_pulled: dict[tuple[str, str], dict[str, str]] = {}


def interval_var(ti: Any, vars_task: str, name: str) -> str:
    """One interval var from the vars task's XCom (the hourly DAG's template macro `interval_var`), pulled once per task
    process: a model task renders all seven each time it runs on a worker (a failed node's, a retry's), and a pull is
    a request to the api-server."""
    key = (ti.run_id, vars_task)
    if key not in _pulled:
        _pulled[key] = ti.xcom_pull(task_ids=vars_task)
    return _pulled[key][name]


def dbt_group(group_id: str, select: list[str], exclude: list[str] | None = None, vars_task: str | None = None,
              settings: Settings | None = None) -> Any:
    """A DbtTaskGroup over the project for `dbt build --select <select> --exclude <exclude>`, one task per node."""
    settings = settings or Settings.from_environment()
    _cosmos_environment(settings)
    from cosmos import DbtTaskGroup, ExecutionConfig, ProfileConfig, ProjectConfig, RenderConfig
    from cosmos.constants import ExecutionMode, InvocationMode, LoadMode

    project = settings.dbt_project_dir
    manifest = manifest_path(settings)
    if not manifest.exists():
        raise FileNotFoundError(f"{manifest} is missing: window_tvf_dbt_tasks=per_model renders from dbt's manifest; "
                                "run `python -m window_tvf_pipeline.model_tasks` (make airflow does)")
    group = DbtTaskGroup(
        group_id=group_id,
        project_config=ProjectConfig(dbt_project_path=project, manifest_path=manifest, install_dbt_deps=False),
        profile_config=ProfileConfig(profile_name="window_tvf", target_name=settings.target,
                                     profiles_yml_filepath=project / "profiles.yml"),
        execution_config=ExecutionConfig(execution_mode=ExecutionMode.WATCHER,
                                         invocation_mode=InvocationMode.DBT_RUNNER),
        render_config=RenderConfig(load_method=LoadMode.DBT_MANIFEST, select=select, exclude=exclude or [],
                                   invocation_mode=InvocationMode.DBT_RUNNER,
                                   should_detach_multiple_parents_tests=True),
        operator_args={"env": interval_env_template(vars_task) if vars_task else {}, "install_deps": False},
    )
    from window_tvf_pipeline.cosmos_watcher import adapt

    adapt(list(group.iter_tasks()))
    hand_over_on_the_build(group)
    return group


# The group's last tasks (what the step after a group waits for): its build done, or else every model task done.
STEP_DONE = "step_done"
MODEL_TASKS_DONE = "model_tasks_done"


def hand_over_on_the_build(group: Any) -> None:
    """The step after a group starts once the group's `dbt build` (its producer) has succeeded: every node of the
    step is built and tested then. The model tasks turn green in the triggerer one level of the dbt graph after the
    other, about 2.5 s a level once the build is done (a model, its tests, the model after it: 6-7 s for the staged
    events' and the priced orders' three levels, measured 2026-12-01), and the step after them no longer waits for
    that. If the build failed, the step after waits for every model task instead, as it did before: their retries
    rerun the failed models alone (Cosmos' fallback), and a model that stays red stops the steps after it.
    `step_done` (one_success) follows the producer and `model_tasks_done` (all_success over the group's last model
    and test tasks); Cosmos' `dbt_producer_watcher_done` stays as Cosmos has it."""
    from airflow.providers.standard.operators.empty import EmptyOperator
    from airflow.task.trigger_rule import TriggerRule

    tasks = list(group.iter_tasks())
    producer = group.get_child_by_label("dbt_producer_watcher")
    cosmos_done = group.get_child_by_label("dbt_producer_watcher_done")
    ids = {task.task_id for task in tasks}
    last = [task for task in tasks
            if task not in (producer, cosmos_done) and not task.downstream_task_ids & ids]
    models_done = EmptyOperator(task_id=MODEL_TASKS_DONE, task_group=group)
    step_done = EmptyOperator(task_id=STEP_DONE, task_group=group, trigger_rule=TriggerRule.ONE_SUCCESS)
    last >> models_done >> step_done
    producer >> step_done


def hourly_model_tasks(settings: Settings, snapshot_wait: Any) -> Any:
    """The hourly DAG's dbt steps as per-model groups, with the rejection gates as tasks between them, in the coarse
    tasks' order: event vars >> staged events >> event gate >> windows; snapshot wait >> price vars >> prices >>
    price gate >> priced orders, which also wait for the windows step's nodes they read (after_the_nodes_it_reads).
    Returns the windows' group, for the DAG file to wire the checks after it."""
    from airflow.sdk import task

    from window_tvf_pipeline import tasks

    if settings.window_models != "incremental":
        raise ValueError("window_tvf_dbt_tasks=per_model builds the incremental window models only (the microbatch "
                         "twins need the interval's --event-time-start/--event-time-end); use coarse")

    @task(task_id=EVENT_VARS)
    def event_vars(data_interval_start=None, data_interval_end=None) -> dict[str, str]:
        return tasks.interval_env(data_interval_start, data_interval_end)

    @task(task_id=PRICE_VARS)
    def price_vars(data_interval_start=None, data_interval_end=None) -> dict[str, str]:
        return tasks.interval_env(data_interval_start, data_interval_end)

    @task(retries=0)  # a failed gate fails for good (tasks._gate): fix the file, then clear the task
    def gate_event_rejections(data_interval_start=None, data_interval_end=None) -> None:
        tasks.gate_event_rejections(data_interval_start, data_interval_end)

    @task(retries=0)
    def gate_price_rejections(data_interval_start=None, data_interval_end=None) -> None:
        tasks.gate_price_rejections(data_interval_start, data_interval_end)

    staged = dbt_group("build_staged_events", tasks.STAGED_EVENT_MODELS.split(), vars_task=EVENT_VARS,
                       settings=settings)
    select, exclude = tasks.event_window_selection(settings)
    windows = dbt_group("build_event_windows", select, exclude, vars_task=EVENT_VARS, settings=settings)
    event_vars() >> staged >> gate_event_rejections() >> windows
    prices = dbt_group("load_price_snapshots", tasks.PRICE_MODELS.split(), vars_task=PRICE_VARS, settings=settings)
    price_gate = gate_price_rejections()
    snapshot_wait >> price_vars() >> prices >> price_gate
    priced = dbt_group("build_priced_orders", tasks.JOIN_MODELS.split(), vars_task=PRICE_VARS, settings=settings)
    price_gate >> priced
    after_the_nodes_it_reads(priced, [windows, prices])
    return windows


def after_the_nodes_it_reads(group: Any, others: list[Any]) -> None:
    """`group` starts once the tasks of the dbt nodes it reads in the `others` groups are done (dbt's lineage from the
    manifest), not after those groups whole: the priced orders read the windows step's on-time events view, built
    some 14 s into that step's build, and no window. So the join runs beside the rest of the windows' build, as the
    coarse DAG's price loading does, and a failed window model does not hold it back (as in one `dbt build`, which
    skips only what a failure feeds)."""
    read = {parent for node in group.dbt_graph.filtered_nodes.values() for parent in node.depends_on}
    for other in others:
        for unique_id in sorted(read & other.tasks_map.keys()):
            other.tasks_map[unique_id] >> group


def reference_model_tasks(settings: Settings) -> Any:
    """The reference DAG's build_examples as one task per example model and test."""
    return dbt_group("build_examples", [], REFERENCE_EXCLUDE, settings=settings)


# The hourly DAG builds the order pipeline; the Nexmark benchmark (models/nexmark) runs with make bench-nexmark.
REFERENCE_EXCLUDE = ["tag:order_pipeline", "tag:nexmark"]


if __name__ == "__main__":
    print(write_manifest())
