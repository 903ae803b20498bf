"""The hourly DAG under Airflow's own scheduler, as `make airflow` deploys it (scripts/airflow_local.py): api-server,
scheduler, dag-processor and triggerer with LocalExecutor, every task on one Spark Connect server under supervisord.
The scheduler catches up two hourly intervals (one deployment for all faults, to keep the test's time down), and
three faults come in the middle of a `build_event_windows` (the dbt build of the window models, while it talks to
the Spark server):

1. first interval: the Spark Connect server's JVM SIGKILLed: supervisord starts it again on its port, warehouse and
   metastore, and the tasks that failed with it succeed on their retries;
2. second interval: the Airflow scheduler SIGKILLed, then `make airflow` (as typed): it stops what is left of the
   deployment (the killed scheduler's task processes included) and resumes it; the new scheduler resets the
   orphaned task, which runs again;
3. second interval again, in that new try: `make airflow-stop`, then `make airflow`: the resumed deployment keeps
   the finished run and its task instances, their logs, a table's rows, the landing files, the login and the
   ports, and the interrupted run finishes.

Every pipeline table then equals the `dag.test()` path's on the embedded Spark over the same landing files, row
for row (nothing lost, nothing doubled); each interval is green after its retries. The UI's grid, opened in headless
Chromium with the admin's token, shows the runs green (the screenshot is kept as docs/airflow_grid.png). The printed
commands run as printed (the CLI hint in a shell without the venv on PATH, `make airflow-sql`, `make airflow-status`),
and `make airflow-reset` deletes what it lists and leaves no process. The figures (faults, retries, recovery times,
tables equal) are written to .spark/pytest/airflow_dag_test/faults.json for docs/airflow_deployment.md.

Not part of `make test` (about 15 minutes on 2 cores): `make test-airflow` runs it (WINDOW_TVF_TEST_AIRFLOW=1)."""

from __future__ import annotations

import colorsys
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import urllib.error
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

from dbt_harness import REPO, TEST_DIR
from headless_chromium import find_chromium, open_page

sys.path.insert(0, str(REPO / "scripts"))
from airflow_local import (  # noqa: E402
    HOURLY_DAG,
    REFERENCE_DAG,
    LocalAirflow,
    Running,
    api,
    dag_runs,
    hints,
    main,
    metadata,
    reset,
    set_paused,
    start,
    stop,
    wait_for_runs,
)
from spark_cluster import _accepts_connections, free_port, session_members  # noqa: E402
from spark_supervisor import LOG_CONFIG, server_jvm, supervisord_pids  # noqa: E402

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        os.environ.get("WINDOW_TVF_TEST_AIRFLOW") != "1",
        reason="starts a real Airflow deployment (about 15 minutes): run it with make test-airflow",
    ),
]

CONFIG = LocalAirflow(home=REPO / ".airflow" / "test-deployment", hours=2, feed_hours=1, run_reference=False)
WORK = TEST_DIR / "airflow_dag_test"
SCHEMA = "airflow_dag_test"
RUN_TIMEOUT_S = 1800.0
SCREENSHOT = REPO / "docs" / "airflow_grid.png"
FIGURES = WORK / "faults.json"
FAILED = WORK / "failed_runs"  # the logs of a deployment whose runs failed (the last test deletes the deployment)
# When in build_event_windows a fault comes: once its rejection gate has passed (its task log says so), at the next
# dbt node that starts (the deployment's dbt log), this many seconds into it: while the window models' build talks
# to the Spark server, not while dbt parses (a kill then was no fault: the build met a server already back).
FAULT_AFTER_S = 3


@dataclass
class Faults:
    """What each fault did, as seen while the deployment ran (the state after it is read by the tests)."""

    first: datetime
    server: dict[str, Any] = field(default_factory=dict)  # 1: the Spark server's JVM killed
    scheduler: dict[str, Any] = field(default_factory=dict)  # 2: the scheduler killed, then make airflow
    stop: dict[str, Any] = field(default_factory=dict)  # 3: make airflow-stop, then make airflow
    before: Running | None = None  # the deployment just before fault 3's stop
    after: Running | None = None  # the deployment fault 3's start resumed


def _sql(statement: str) -> str:
    """`make airflow-sql`, as the docs and the start message print it."""
    done = subprocess.run(["make", "-s", "airflow-sql", f"SQL={statement}", f"AIRFLOW_ARGS=--home {CONFIG.home}"],
                          cwd=REPO, capture_output=True, text=True, timeout=300, env=_outside_make())
    assert done.returncode == 0, done.stdout + done.stderr[-3000:]
    return done.stdout


def _count(statement: str) -> int:
    """The one number in the output of a `select count(*) as n ...` (Spark's `show` table)."""
    numbers = re.findall(r"^\|\s*(\d+)\s*\|$", _sql(statement), re.MULTILINE)
    assert len(numbers) == 1, numbers
    return int(numbers[0])


def _database() -> dict[str, list]:
    """Every run of the hourly DAG and its task instances, as the metadata database holds them."""
    from sqlalchemy import text

    url = Running.load(CONFIG.state_file).env["AIRFLOW__DATABASE__SQL_ALCHEMY_CONN"]
    with metadata(url) as db:
        return {
            run[0]: [tuple(run), sorted(tuple(ti) for ti in db.execute(text(
                "select task_id, state, try_number, start_date, end_date from task_instance where dag_id = :dag and "
                "run_id = :run"), {"dag": HOURLY_DAG, "run": run[0]}))]
            for run in db.execute(text(
                "select run_id, state, run_type, data_interval_start, start_date, end_date from dag_run where "
                "dag_id = :dag"), {"dag": HOURLY_DAG}).fetchall()
        }


def _landing() -> dict[str, tuple[int, int]]:
    return {str(p.relative_to(CONFIG.landing_dir)): (p.stat().st_size, p.stat().st_mtime_ns)
            for p in CONFIG.landing_dir.rglob("*.jsonl")}


def _outside_make() -> dict[str, str]:
    """The environment of a shell a person types into: under `make test-airflow` a nested make would say
    "make[1]: Entering directory" before the command's own output; and no Airflow settings of this process (the
    dag.test() comparison sets some)."""
    return {k: v for k, v in os.environ.items()
            if k not in ("MAKELEVEL", "MAKEFLAGS", "MFLAGS") and not k.startswith("AIRFLOW")}


def _poll(ready: Any, timeout: float, what: str) -> Any:
    """Polls `ready()` until truthy; an api-server slow to answer on a loaded machine (a timeout) is tried again."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            value = ready()
            if value:
                return value
        except (OSError, urllib.error.URLError, ValueError, KeyError):
            pass
        assert time.monotonic() < deadline, f"{what}: not after {timeout:.0f} s"
        time.sleep(2)


def _dbt_starts() -> int:
    """dbt nodes started so far by any task of the deployment (its dbt log)."""
    log = CONFIG.home / "dbt" / "logs" / "dbt.log"
    return log.read_text(errors="replace").count(" START ") if log.exists() else 0


def _in_the_middle_of(interval: datetime, after_try: int = 0) -> dict:
    """Waits until a try of build_event_windows later than `after_try`, in the run of `interval`, is in the middle of
    its window models' build (see FAULT_AFTER_S); returns that run."""
    def gate_passed() -> dict | None:
        deployment = Running.load(CONFIG.state_file)
        for run in dag_runs(deployment, HOURLY_DAG, deployment.token()):
            ti = run["tasks"].get("build_event_windows", {})
            if intervals([run])[0] != interval or ti.get("state") != "running" or ti["try_number"] <= after_try:
                continue
            log = (CONFIG.home / "logs" / f"dag_id={HOURLY_DAG}" / f"run_id={run['dag_run_id']}" /
                   "task_id=build_event_windows" / f"attempt={ti['try_number']}.log")
            if log.exists() and "order_events.rejection_gate: 1 rows, validated" in log.read_text(errors="replace"):
                return run
        return None

    run = _poll(gate_passed, RUN_TIMEOUT_S, f"build_event_windows of {interval:%H:%M} past its gate")
    started = _dbt_starts()
    _poll(lambda: _dbt_starts() > started, 600, "the window models' build to start a node")
    time.sleep(FAULT_AFTER_S)
    return run


def _kill_the_spark_server(deployment: Running, interval: datetime) -> dict[str, Any]:
    """Fault 1: SIGKILL to the server's JVM; returns once supervisord has it serving again."""
    spark_dir = Path(deployment.spark_dir)
    port = deployment.spark_port
    run = _in_the_middle_of(interval)
    old = server_jvm(spark_dir)
    os.kill(old, signal.SIGKILL)
    killed_at = time.monotonic()
    new = _poll(lambda: (jvm := server_jvm(spark_dir)) not in (None, old) and _accepts_connections("127.0.0.1", port)
                and jvm, 300, "the Spark server back")
    return {"run_id": run["dag_run_id"], "old": old, "new": new, "port": port,
            "back_after_s": round(time.monotonic() - killed_at),
            "cmdline": [a.decode() for a in Path(f"/proc/{new}/cmdline").read_bytes().split(b"\0")],
            "supervisord_log": (spark_dir / "supervisord.log").read_text(),
            "connect_log": (spark_dir / "connect.log").read_text(errors="replace")}


def _kill_the_scheduler(deployment: Running, interval: datetime) -> dict[str, Any]:
    """Fault 2: SIGKILL to the scheduler (its task processes live on, orphaned), then `make airflow` as typed."""
    run = _in_the_middle_of(interval)
    finished = {run_id: row for run_id, row in _database().items() if row[0][1] == "success"}
    os.kill(deployment.pids["scheduler"], signal.SIGKILL)
    killed_at = time.monotonic()
    done = subprocess.run(["make", "airflow", f"AIRFLOW_ARGS=--home {CONFIG.home}"], cwd=REPO, capture_output=True,
                          text=True, timeout=900, env=_outside_make())
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return {"run_id": run["dag_run_id"], "said": done.stdout.splitlines(), "finished": finished,
            "try": run["tasks"]["build_event_windows"]["try_number"], "up_after_s": round(time.monotonic() - killed_at)}


def _stop_and_start(interval: datetime, after_try: int) -> dict[str, Any]:
    """Fault 3: `make airflow-stop` in the middle of a run, then `make airflow` (in this process: what each said is
    kept), with what was there in between."""
    run = _in_the_middle_of(interval, after_try)
    rows = _count(f"select count(*) as n from stg_order_events where arrival_hour < "
                  f"timestamp'{interval:%Y-%m-%d %H:%M:%S}'")  # the lines of the runs that have finished
    before = Running.load(CONFIG.state_file)
    password = before.password
    stop_said: list[str] = []
    stop(CONFIG, say=stop_said.append)
    stopped_at = datetime.now(timezone.utc)
    finished = {run_id: row for run_id, row in _database().items() if row[0][1] == "success"}
    log_sizes = {p: p.stat().st_size for run_id in finished for p in (
        CONFIG.home / "logs" / f"dag_id={HOURLY_DAG}" / f"run_id={run_id}").rglob("attempt=*.log")}
    landing = _landing()
    start_said: list[str] = []
    began = time.monotonic()
    after = start(CONFIG, say=start_said.append)
    return {"run_id": run["dag_run_id"], "try": run["tasks"]["build_event_windows"]["try_number"],
            "before": before, "after": after, "password": password, "rows": rows,
            "stopped_at": stopped_at, "finished": finished, "log_sizes": log_sizes, "landing": landing,
            "stop_said": stop_said, "start_said": start_said, "up_after_s": round(time.monotonic() - began)}


@pytest.fixture(scope="module")
def faults() -> Any:
    """A new deployment; its two intervals take the three faults (see the module's docstring)."""
    reset(CONFIG, say=lambda _: None)
    first_start = start(CONFIG)
    try:
        first = datetime.fromisoformat(first_start.first_interval)
        seen = Faults(first)
        seen.server = _kill_the_spark_server(first_start, first)
        seen.scheduler = _kill_the_scheduler(Running.load(CONFIG.state_file), first + timedelta(hours=1))
        seen.stop = _stop_and_start(first + timedelta(hours=1), seen.scheduler["try"])
        seen.before, seen.after = seen.stop["before"], seen.stop["after"]
        yield seen
    finally:
        stop(CONFIG)


@pytest.fixture(scope="module")
def deployment(faults: Faults) -> Running:
    return faults.after


@pytest.fixture(scope="module")
def scheduled(deployment: Running) -> list[dict]:
    """The scheduler's catch-up over the two intervals before the first start, then the DAG paused (so that the
    next hour, if it passes during the test, starts nothing)."""
    runs = wait_for_runs(deployment, HOURLY_DAG, 2, RUN_TIMEOUT_S)
    set_paused(deployment, HOURLY_DAG, True, deployment.token())
    runs = wait_for_runs(deployment, HOURLY_DAG, len(runs), RUN_TIMEOUT_S)
    if any(run["state"] != "success" for run in runs):  # the reset test deletes the deployment: keep what tells why
        for kept in ("logs", "dbt/logs", "spark-server"):
            if (CONFIG.home / kept).exists():
                shutil.copytree(CONFIG.home / kept, FAILED / kept, dirs_exist_ok=True,
                                ignore=shutil.ignore_patterns("warehouse", "metastore_db", "tmp", "*.sock", "*.pid"))
        print(f"A run failed: its task, dbt and Spark server logs are kept in {FAILED}")
    return runs


def intervals(runs: list[dict]) -> list[datetime]:
    return [datetime.fromisoformat(run["data_interval_start"].replace("Z", "+00:00")) for run in runs]


def test_the_scheduler_catches_up_the_hours_before_now_and_every_task_succeeds(
    deployment: Running, scheduled: list[dict]
) -> None:
    """Each interval green after its fault and retries, once (no interval run twice)."""
    first = datetime.fromisoformat(deployment.first_interval)
    assert intervals(scheduled)[:2] == [first, first + timedelta(hours=1)]
    assert len(set(intervals(scheduled))) == len(scheduled)
    states = {run["data_interval_start"]: {t: ti["state"] for t, ti in run["tasks"].items()} for run in scheduled}
    assert all(state == "success" for tasks in states.values() for state in tasks.values()), states
    assert [run["run_type"] for run in scheduled] == ["scheduled"] * len(scheduled)


def test_tasks_ran_side_by_side_on_the_server(deployment: Running, scheduled: list[dict]) -> None:
    """The server target lifts the one-driver limit: the price path ran while the event windows were built. Over
    every try (each run's build_event_windows took a fault and was retried after load_price_snapshots had ended, so
    the last tries alone need not overlap; 2026-11-28's run showed that)."""
    token = deployment.token()

    def tries(run: dict, task: str) -> list[dict]:
        return api(deployment.api_url, f"/api/v2/dags/{HOURLY_DAG}/dagRuns/{run['dag_run_id']}/taskInstances/"
                                       f"{task}/tries", token)["task_instances"]

    def side_by_side(run: dict) -> bool:
        return any(prices["start_date"] < windows["end_date"] and windows["start_date"] < prices["end_date"]
                   for windows in tries(run, "build_event_windows") for prices in tries(run, "load_price_snapshots")
                   if windows["start_date"] and windows["end_date"] and prices["start_date"] and prices["end_date"])

    assert any(side_by_side(run) for run in scheduled)
    assert {ti["pool"] for run in scheduled for ti in run["tasks"].values()} == {"default_pool"}


def _last_attempts(home: Path, run_ids: list[str]) -> list[Path]:
    """Each task's last attempt's log (the one that succeeded; earlier ones met a fault)."""
    last: dict[Path, Path] = {}
    for run_id in run_ids:
        every = (home / "logs" / f"dag_id={HOURLY_DAG}" / f"run_id={run_id}").glob("task_id=*/attempt=*.log")
        for path in sorted(every, key=lambda p: int(p.stem.split("=")[1])):
            last[path.parent] = path
    return sorted(last.values())


def test_task_logs_hold_errors_only_at_error_and_the_dbt_summary(deployment: Running, scheduled: list[dict]) -> None:
    """A successful attempt's task log: nothing at ERROR (no Spark chatter, progress bars or Python warnings), and
    each dbt command's summary in one line."""
    logs = _last_attempts(deployment.home, [run["dag_run_id"] for run in scheduled])
    assert logs
    records = [json.loads(line) for path in logs for line in path.read_text().splitlines() if line.startswith("{")]
    assert [r["event"] for r in records if r.get("level") in ("error", "critical")] == []
    summaries = [r["event"] for r in records if str(r.get("event", "")).startswith("dbt build --select")]
    assert summaries and all(re.search(r": PASS=\d+ WARN=0 ERROR=0 SKIP=0 TOTAL=\d+ in ", s) for s in summaries)
    assert not [r for r in records if r.get("logger") == "task.stdout" and "START sql" in str(r.get("event"))]


def _tries(run: dict) -> dict[str, int]:
    return {task: ti["try_number"] for task, ti in run["tasks"].items()}


def test_a_killed_server_comes_back_on_its_port_and_the_interval_succeeds_on_retries(
    faults: Faults, scheduled: list[dict]
) -> None:
    """Fault 1. supervisord starts the server again (the same command: port, warehouse and metastore); the tasks
    that failed with it succeed on a retry. Its tables: test_every_table_equals_the_dag_test_path."""
    server = faults.server
    spark_dir = Path(faults.after.spark_dir)
    assert server["new"] != server["old"]
    assert f"spark.connect.grpc.binding.port={server['port']}" in server["cmdline"]
    assert f"spark.sql.warehouse.dir={spark_dir}/warehouse" in server["cmdline"]
    assert server["supervisord_log"].count("spawned: 'spark-connect'") == 2
    assert "exited: spark-connect (terminated by SIGKILL; not expected)" in server["supervisord_log"]
    # each start repaired the warehouse before it served (scripts/connect_server.py): whether the kill cut a write
    # depends on where it lands (test_spark_server_recovery.py cuts them deterministically)
    assert len(re.findall(r"Warehouse \S+ checked in [0-9.]+ s \((?:nothing to repair|repaired)\); serving",
                          server["connect_log"])) == 2, server["connect_log"][-3000:]
    run = next(r for r in scheduled if r["dag_run_id"] == server["run_id"])
    assert run["state"] == "success"
    assert {t: ti["state"] for t, ti in run["tasks"].items()} == {t: "success" for t in run["tasks"]}
    assert run["tasks"]["build_event_windows"]["try_number"] >= 2, _tries(run)


def test_after_a_killed_scheduler_make_airflow_resumes_and_the_interval_succeeds(
    faults: Faults, scheduled: list[dict]
) -> None:
    """Fault 2. `make airflow` finds the deployment partly running, stops the rest (the orphaned task with it) and
    resumes; the new scheduler resets the interrupted task, which runs again. The runs that had finished are as
    they were."""
    killed = faults.scheduler
    assert any("only partly running (scheduler not running): stopping what is left of it, then resuming it." in line
               for line in killed["said"]), killed["said"]
    assert any(line.startswith("Airflow is up in ") for line in killed["said"])
    run = next(r for r in scheduled if r["dag_run_id"] == killed["run_id"])
    assert run["state"] == "success"
    assert {t: ti["state"] for t, ti in run["tasks"].items()} == {t: "success" for t in run["tasks"]}
    assert run["tasks"]["build_event_windows"]["try_number"] > killed["try"], _tries(run)
    now = _database()
    assert killed["finished"] and {run_id: now[run_id] for run_id in killed["finished"]} == killed["finished"]


def test_figures(faults: Faults, scheduled: list[dict]) -> None:
    """The numbers docs/airflow_deployment.md reports, written where the doc's author reads them."""
    by_id = {run["dag_run_id"]: run for run in scheduled}
    figures = {
        "faults": {
            name: {"interval": f"{intervals([by_id[fault['run_id']]])[0]:%Y-%m-%d %H:%M}",
                   "state": by_id[fault["run_id"]]["state"], "tries": _tries(by_id[fault["run_id"]]),
                   **{k: fault[k] for k in ("back_after_s", "up_after_s") if k in fault}}
            for name, fault in (("spark_server_sigkill", faults.server), ("scheduler_sigkill", faults.scheduler),
                                ("stop_then_start", faults.stop))
        },
        "runs": [{"interval": f"{intervals([run])[0]:%Y-%m-%d %H:%M}", "state": run["state"],
                  "seconds": round((datetime.fromisoformat(run["end_date"].replace("Z", "+00:00"))
                                    - datetime.fromisoformat(run["start_date"].replace("Z", "+00:00"))).total_seconds())}
                 for run in scheduled],
        "load_average": os.getloadavg(),
    }
    WORK.mkdir(parents=True, exist_ok=True)
    FIGURES.write_text(json.dumps(figures, indent=1))
    assert all(fault["state"] == "success" for fault in figures["faults"].values())


def _server_tables(deployment: Running) -> dict[str, list[str]]:
    """Every pipeline table on the deployment's Spark server, dumped by a client process with the tasks' settings."""
    from pipeline_child import dump_in_a_process

    return dump_in_a_process(deployment.env, WORK / "server_tables.json", timeout=600)


def test_every_table_equals_the_dag_test_path(deployment: Running, scheduled: list[dict]) -> None:
    server = _server_tables(deployment)
    from window_tvf_pipeline import dag_runs as local_runs
    from window_tvf_pipeline.config import PIPELINE_TABLES, VIEWS, Settings
    from window_tvf_pipeline.spark import spark_session

    with pytest.MonkeyPatch.context() as patch:
        for name in ("WINDOW_TVF_LANDING_DIR", "WINDOW_TVF_PIPELINE_START"):
            patch.setenv(name, deployment.env[name])
        patch.setenv("WINDOW_TVF_GX_DIR", str(WORK / "great_expectations"))
        patch.setenv("WINDOW_TVF_SCHEMA", SCHEMA)
        local_runs.configure_airflow(WORK / "airflow")
        settings = Settings.from_environment()
        assert settings.target == "embedded"
        local_runs.prepare_airflow(settings)
        hourly = local_runs.load_dag(HOURLY_DAG)
        spark = spark_session(settings)
        for table in PIPELINE_TABLES:
            spark.sql(f"drop {'view' if table in VIEWS else 'table'} if exists {SCHEMA}.{table}")
        for start_ in intervals(scheduled):
            assert local_runs.run_interval(hourly, start_).failed_tasks == []
        local = {
            table: sorted(json.dumps(list(row), default=str) for row in spark.table(f"{SCHEMA}.{table}").collect())
            for table in PIPELINE_TABLES
        }
    assert sum(len(rows) for rows in local.values()) > 1000
    for table in PIPELINE_TABLES:
        assert server[table] == local[table], table
    if FIGURES.exists():
        figures = json.loads(FIGURES.read_text())
        figures["tables_equal"] = {"tables": len(PIPELINE_TABLES), "rows": sum(len(rows) for rows in local.values())}
        FIGURES.write_text(json.dumps(figures, indent=1))


def _hue(css_color: str) -> float:
    """The hue in degrees of an `oklch(l c h)` or `rgb(r, g, b)` CSS color."""
    numbers = [float(n) for n in re.findall(r"[\d.]+", css_color)]
    if css_color.startswith("oklch"):
        return numbers[2]
    h, _, _ = colorsys.rgb_to_hls(*(n / 255 for n in numbers[:3]))
    return h * 360


GRID_CELLS = """JSON.stringify(Array.from(document.querySelectorAll('a[data-testid^="grid-"]')).map(a => [
    a.dataset.testid, getComputedStyle(a.querySelector('[data-testid=task-state-badge]')).backgroundColor]))"""


@pytest.mark.skipif(find_chromium() is None, reason="no chromium on PATH (Debian: apt-get install -y chromium)")
def test_the_grid_shows_the_runs_green(deployment: Running, scheduled: list[dict]) -> None:
    run_ids = [run["dag_run_id"] for run in scheduled]
    expected = {f"grid-{run_id}-{task}" for run_id in run_ids for task in scheduled[0]["tasks"]}
    with open_page(f"{deployment.api_url}/dags/{HOURLY_DAG}", {"_token": deployment.token()}, free_port()) as page:
        cells = json.loads(page.wait_for(
            f"document.querySelectorAll('a[data-testid^=\"grid-\"]').length >= {len(expected)} && {GRID_CELLS}"
        ))
        page.screenshot(SCREENSHOT)
    colors = dict(cells)
    assert expected <= set(colors), sorted(colors)
    # Airflow's success color is green (oklch hue 149); running is cyan (222), queued and failed elsewhere.
    assert {cell: 120 <= _hue(colors[cell]) <= 165 for cell in expected} == {cell: True for cell in expected}, colors


def test_the_gate_logs_how_many_lines_it_quarantined_and_why(deployment: Running, scheduled: list[dict]) -> None:
    """Each run's gate line: the quarantined lines (as many as stg_order_events holds with a reason for that arrival
    hour, counted through make airflow-sql), their reasons adding up to them."""
    table = re.findall(r"^\|(\d{4}-\d\d-\d\d \d\d:00:00)\|\s*(\d+)\s*\|$", _sql(
        "select arrival_hour, count(case when reason is not null then line_number end) as n from stg_order_events "
        "group by arrival_hour order by arrival_hour"), re.MULTILINE)
    in_table = {hour: int(n) for hour, n in table}
    logged = {}
    for run in scheduled[:3]:
        logs = sorted((deployment.home / "logs" / f"dag_id={HOURLY_DAG}" / f"run_id={run['dag_run_id']}").glob(
            "task_id=build_event_windows/attempt=*.log"))
        events = [json.loads(line)["event"] for path in logs for line in path.read_text().splitlines()
                  if line.startswith("{") and "order_events.rejection_gate: " in line and "quarantined" in line]
        hour = f"{intervals([run])[0]:%Y-%m-%d %H:00:00}"
        some = re.fullmatch(r"order_events\.rejection_gate: (\d+) of (\d+) event lines that arrived in \[.*\) "
                            r"quarantined \(\d+\.\d%; the gate allows 10%\), by reason: (.*)\.", events[-1])
        if some:
            assert sum(int(part.rsplit(" ", 1)[1]) for part in some[3].split(", ")) == int(some[1]), events[-1]
            logged[hour] = int(some[1])
        else:
            assert re.fullmatch(r"order_events\.rejection_gate: \d+ event lines that arrived in \[.*\), none "
                                r"quarantined \(the gate allows 10%\)\.", events[-1]), events[-1]
            logged[hour] = 0
    assert logged == {hour: in_table[hour] for hour in logged}


def test_a_stop_in_the_middle_of_a_run_keeps_runs_logs_tables_landing_files_login_and_ports(
    faults: Faults, scheduled: list[dict]
) -> None:
    """Fault 3, what the restart kept: the finished runs and their task instances, their logs, the rows of the
    finished intervals, the landing files, the login, the secret and (where still free) the ports."""
    restart = faults.stop
    before, after = faults.before, faults.after
    assert len(restart["finished"]) >= 1
    now = _database()
    assert {run_id: now[run_id] for run_id in restart["finished"]} == restart["finished"]
    assert {p: p.stat().st_size for p in restart["log_sizes"] if p.exists()} == restart["log_sizes"]
    assert after.first_interval == before.first_interval
    second = datetime.fromisoformat(after.first_interval) + timedelta(hours=1)
    assert _count(f"select count(*) as n from stg_order_events where arrival_hour < "
                  f"timestamp'{second:%Y-%m-%d %H:%M:%S}'") == restart["rows"] > 0
    landing = _landing()
    assert {name: landing.get(name) for name in restart["landing"]} == restart["landing"]
    assert after.password == restart["password"]
    # The same ports, unless the start said one was taken by then (it takes another, and says so).
    for port_before, port_after, what in ((before.api_port, after.api_port, "The Airflow UI"),
                                          (before.spark_port, after.spark_port, "The Spark Connect server")):
        said = f"{what}: port {port_before} is taken now; using {port_after}."
        assert port_before == port_after or said in restart["start_said"], (port_before, port_after)
    assert after.env["AIRFLOW__API_AUTH__JWT_SECRET"] == before.env["AIRFLOW__API_AUTH__JWT_SECRET"]
    assert restart["stop_said"][-1].endswith("make airflow resumes them, make airflow-reset deletes them.")
    assert restart["start_said"][0].startswith(f"Resuming the deployment in {CONFIG.home}")


def test_the_run_the_stop_interrupted_finishes_after_the_restart(faults: Faults, scheduled: list[dict]) -> None:
    run = next(r for r in scheduled if r["dag_run_id"] == faults.stop["run_id"])
    assert intervals([run])[0] == faults.first + timedelta(hours=1)
    assert run["dag_run_id"] not in faults.stop["finished"]
    assert run["state"] == "success" and run["run_type"] == "scheduled"
    assert {t: ti["state"] for t, ti in run["tasks"].items()} == {t: "success" for t in run["tasks"]}
    assert run["tasks"]["build_event_windows"]["try_number"] > faults.stop["try"], _tries(run)
    assert datetime.fromisoformat(run["end_date"].replace("Z", "+00:00")) > faults.stop["stopped_at"]


def test_the_server_logs_at_warn_into_a_rolling_file(deployment: Running, scheduled: list[dict]) -> None:
    spark_dir = Path(deployment.spark_dir)
    cmdline = Path(f"/proc/{server_jvm(spark_dir)}/cmdline").read_bytes().split(b"\0")
    assert f"-Dlog4j2.configurationFile=file:{LOG_CONFIG}".encode() in cmdline
    conf = dict(line.split(" = ", 1) for line in LOG_CONFIG.read_text().splitlines() if " = " in line)
    assert (conf["rootLogger.level"], conf["rootLogger.appenderRef.rolling.ref"]) == ("warn", "rolling")
    assert (conf["appender.rolling.type"], conf["appender.rolling.policies.size.size"],
            conf["appender.rolling.strategy.max"]) == ("RollingFile", "10MB", "3")
    lines = (spark_dir / "spark-server.log").read_text().splitlines()
    levels = {m.group(1) for line in lines if (m := re.match(r"\d\d/\d\d/\d\d \d\d:\d\d:\d\d (\w+) ", line))}
    assert levels and levels <= {"WARN", "ERROR", "FATAL"}, levels
    # Spark's INFO lines go nowhere; the one INFO line of each start is the server program's own (its repair)
    spark_info = [line for line in (spark_dir / "connect.log").read_text().splitlines()
                  if " INFO " in line and " INFO window_tvf.connect_server: " not in line]
    assert not spark_info, spark_info[:5]
    assert (spark_dir / "connect.log").stat().st_size < 100_000


def test_make_airflow_refuses_while_it_runs(deployment: Running, capsys: pytest.CaptureFixture) -> None:
    assert main(["start", "--home", str(CONFIG.home)]) == 1
    assert f"Airflow is already running at {deployment.api_url}" in capsys.readouterr().err


def test_the_printed_cli_hint_works_in_a_plain_shell(deployment: Running) -> None:
    """As printed, in a shell whose PATH lacks the venv (the env file puts it first)."""
    done = subprocess.run(["bash", "-c", hints(CONFIG)["cli"]], env={"HOME": os.environ.get("HOME", "/tmp"),
                          "PATH": "/usr/bin:/bin"}, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert HOURLY_DAG in done.stdout and REFERENCE_DAG in done.stdout


def test_status_says_what_runs_and_the_last_runs(deployment: Running, scheduled: list[dict]) -> None:
    done = subprocess.run(["bash", "-c", hints(CONFIG)["status"]], cwd=REPO, capture_output=True, text=True,
                          timeout=300, env=_outside_make())
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.startswith(f"Airflow is running at {deployment.api_url}")
    finished = sum(run["state"] == "success" for run in scheduled)
    assert f"  {HOURLY_DAG}: {len(scheduled)} runs ({finished} success)" in done.stdout.splitlines()
    assert f"  {HOURLY_DAG} (schedule 0 * * * *): paused, starts nothing." in done.stdout.splitlines()


def test_reset_stops_it_and_deletes_what_it_lists(deployment: Running) -> None:
    """Last in this module: it deletes the deployment, and leaves no process of it (supervisord and the Spark
    server included: a server supervisord restarted during the stop would be left in its session)."""
    running = Running.load(CONFIG.state_file)
    spark_dir = Path(running.spark_dir)
    sessions = set(running.pids.values()) | set(supervisord_pids(spark_dir))
    assert supervisord_pids(spark_dir) and server_jvm(spark_dir)
    # SQLite's -wal and -shm files exist only while the services hold the database: gone once reset stops them
    names = sorted(p.name for p in CONFIG.home.iterdir() if not p.name.endswith(("-wal", "-shm", "-journal")))
    said: list[str] = []
    assert reset(CONFIG, say=said.append) == names
    assert said[0] == f"Stopped the deployment running from {CONFIG.home}."
    assert [line.split()[0] for line in said[2:-1]] == names
    assert not CONFIG.home.exists()
    assert deployment.alive() == {} and session_members(sessions) == []
