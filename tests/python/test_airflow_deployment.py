"""The hourly DAG under Airflow's own scheduler, as `make airflow` deploys it (scripts/airflow_local.py): api-server,
scheduler, dag-processor and triggerer with LocalExecutor, every task on one Spark Connect server. The scheduler
catches up three hourly intervals; the deployment is stopped (`make airflow-stop`) as soon as two have finished, and
started again (`make airflow`), which resumes it: the finished runs and task instances, their logs, a table's rows,
the landing files, the login and the ports are as they were, and the third interval runs after the restart. Every
pipeline table then equals the `dag.test()` path's on the embedded Spark over the same landing files, row for row;
the UI's grid, opened in headless Chromium with the admin's token, shows the runs green (the screenshot is kept as
docs/airflow_grid.png). The printed commands run as printed (the CLI hint in a shell without the venv on PATH,
`make airflow-sql`, `make airflow-status`), and `make airflow-reset` deletes what it lists.

Not part of `make test` (about 10 minutes on 2 cores): `make test-airflow` runs it (WINDOW_TVF_TEST_AIRFLOW=1)."""

from __future__ import annotations

import colorsys
import json
import os
import re
import sqlite3
import subprocess
import sys
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

from dbt_harness import REPO
from headless_chromium import find_chromium, open_page

sys.path.insert(0, str(REPO / "scripts"))
from airflow_local import (  # noqa: E402
    HOURLY_DAG,
    REFERENCE_DAG,
    LocalAirflow,
    Running,
    _wait,
    dag_runs,
    hints,
    main,
    reset,
    set_paused,
    start,
    stop,
    wait_for_runs,
)
from spark_cluster import free_port  # noqa: E402

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        os.environ.get("WINDOW_TVF_TEST_AIRFLOW") != "1",
        reason="starts a real Airflow deployment (about 10 minutes): run it with make test-airflow",
    ),
]

CONFIG = LocalAirflow(home=REPO / ".airflow" / "test-deployment", hours=3, feed_hours=1, run_reference=False)
WORK = REPO / ".spark" / "pytest" / "airflow_dag_test"
SCHEMA = "airflow_dag_test"
RUN_TIMEOUT_S = 1800.0
SCREENSHOT = REPO / "docs" / "airflow_grid.png"


@dataclass
class Restart:
    """The deployment before `stop` and after the `start` that resumed it, with what was seen in between."""

    before: Running
    after: Running
    password: str
    finished: dict[str, list]  # run_id -> [run row, task instance rows] of the runs finished before the stop
    log_sizes: dict[Path, int]
    landing: dict[str, tuple[int, int]]  # file -> (size, mtime_ns)
    rows: int  # stg_order_events' lines of the first two arrival hours, through make airflow-sql
    stopped_at: datetime
    stop_said: list[str]
    start_said: list[str]


def _sql(statement: str) -> str:
    """`make airflow-sql`, as the docs and the start message print it."""
    done = subprocess.run(["make", "-s", "airflow-sql", f"SQL={statement}", f"AIRFLOW_ARGS=--home {CONFIG.home}"],
                          cwd=REPO, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr[-3000:]
    return done.stdout


def _count(statement: str) -> int:
    """The one number in the output of a `select count(*) as n ...` (Spark's `show` table)."""
    numbers = re.findall(r"^\|\s*(\d+)\s*\|$", _sql(statement), re.MULTILINE)
    assert len(numbers) == 1, numbers
    return int(numbers[0])


def _database() -> dict[str, list]:
    """Every run of the hourly DAG and its task instances, as the metadata database holds them."""
    db = sqlite3.connect(f"file:{CONFIG.home / 'airflow.db'}?mode=ro", uri=True)
    runs = {
        run[0]: [run, sorted(db.execute(
            "select task_id, state, try_number, start_date, end_date from task_instance where dag_id = ? and "
            "run_id = ?", (HOURLY_DAG, run[0])).fetchall())]
        for run in db.execute(
            "select run_id, state, run_type, data_interval_start, start_date, end_date from dag_run where dag_id = ?",
            (HOURLY_DAG,))
    }
    db.close()
    return runs


def _landing() -> dict[str, tuple[int, int]]:
    return {str(p.relative_to(CONFIG.landing_dir)): (p.stat().st_size, p.stat().st_mtime_ns)
            for p in CONFIG.landing_dir.rglob("*.jsonl")}


@pytest.fixture(scope="module")
def restart() -> Any:
    """A new deployment; stopped once two of its three intervals have finished (the third may be running: a stop
    comes when it comes), then started again."""
    reset(CONFIG, say=lambda _: None)
    before = start(CONFIG)
    try:
        first = datetime.fromisoformat(before.first_interval)
        _wait(lambda: sum(r["state"] == "success" for r in dag_runs(before, HOURLY_DAG, before.token())) >= 2,
              "two finished runs", before, CONFIG.service_logs / "scheduler.log", RUN_TIMEOUT_S)
        rows = _count(f"select count(*) as n from stg_order_events where arrival_hour < "
                      f"timestamp'{first + timedelta(hours=2):%Y-%m-%d %H:%M:%S}'")
        password = before.password
        stop_said: list[str] = []
        stop(CONFIG, say=stop_said.append)
        stopped_at = datetime.now(timezone.utc)
        finished = {run_id: run for run_id, run in _database().items() if run[0][1] == "success"}
        log_sizes = {p: p.stat().st_size for run_id in finished for p in (
            CONFIG.home / "logs" / f"dag_id={HOURLY_DAG}" / f"run_id={run_id}").rglob("attempt=*.log")}
        landing = _landing()
        start_said: list[str] = []
        after = start(CONFIG, say=start_said.append)
        yield Restart(before, after, password, finished, log_sizes, landing, rows, stopped_at, stop_said, start_said)
    finally:
        stop(CONFIG)


@pytest.fixture(scope="module")
def deployment(restart: Restart) -> Running:
    return restart.after


@pytest.fixture(scope="module")
def scheduled(deployment: Running) -> list[dict]:
    """The scheduler's catch-up over the three intervals before the first start, then the DAG paused (so that the
    next hour, if it passes during the test, starts nothing)."""
    runs = wait_for_runs(deployment, HOURLY_DAG, 3, RUN_TIMEOUT_S)
    set_paused(deployment, HOURLY_DAG, True, deployment.token())
    return wait_for_runs(deployment, HOURLY_DAG, len(runs), RUN_TIMEOUT_S)


def intervals(runs: list[dict]) -> list[datetime]:
    return [datetime.fromisoformat(run["data_interval_start"].replace("Z", "+00:00")) for run in runs]


def test_the_scheduler_catches_up_the_hours_before_now_and_every_task_succeeds(
    deployment: Running, scheduled: list[dict]
) -> None:
    first = datetime.fromisoformat(deployment.first_interval)
    assert intervals(scheduled)[:3] == [first, first + timedelta(hours=1), first + timedelta(hours=2)]
    states = {run["data_interval_start"]: {t: ti["state"] for t, ti in run["tasks"].items()} for run in scheduled}
    assert all(state == "success" for tasks in states.values() for state in tasks.values()), states
    assert [run["run_type"] for run in scheduled] == ["scheduled"] * len(scheduled)


def test_tasks_ran_side_by_side_on_the_server(scheduled: list[dict]) -> None:
    """The server target lifts the one-driver limit: the price path ran while the event windows were built."""
    tasks = scheduled[0]["tasks"]
    windows, prices = tasks["build_event_windows"], tasks["load_price_snapshots"]
    assert prices["start_date"] < windows["end_date"] and windows["start_date"] < prices["end_date"]
    assert {ti["pool"] for ti in tasks.values()} == {"default_pool"}


def test_task_logs_hold_errors_only_at_error_and_the_dbt_summary(deployment: Running, scheduled: list[dict]) -> None:
    """A successful run's task logs: nothing at ERROR (no Spark chatter, progress bars or Python warnings), and
    each dbt command's summary in one line. The runs that finished before the stop (a task the stop interrupted may
    log its SIGTERM at ERROR)."""
    logs = sorted(path for run_id in (run["dag_run_id"] for run in scheduled[:2])
                  for path in (deployment.home / "logs" / f"dag_id={HOURLY_DAG}" / f"run_id={run_id}").glob(
                      "task_id=*/attempt=*.log"))
    assert logs
    records = [json.loads(line) for path in logs for line in path.read_text().splitlines() if line.startswith("{")]
    assert [r["event"] for r in records if r.get("level") in ("error", "critical")] == []
    summaries = [r["event"] for r in records if str(r.get("event", "")).startswith("dbt build --select")]
    assert summaries and all(re.search(r": PASS=\d+ WARN=0 ERROR=0 SKIP=0 TOTAL=\d+ in ", s) for s in summaries)
    assert not [r for r in records if r.get("logger") == "task.stdout" and "START sql" in str(r.get("event"))]


def _server_tables(deployment: Running) -> dict[str, list[str]]:
    """Every pipeline table on the deployment's Spark server, dumped by a client process with the tasks' settings."""
    dump = WORK / "server_tables.json"
    dump.parent.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(
        [sys.executable, str(REPO / "tests" / "python" / "pipeline_child.py"), "dump", str(dump)],
        env=deployment.env, capture_output=True, text=True, timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(dump.read_text())


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


def test_a_restart_keeps_runs_logs_tables_landing_files_login_and_ports(restart: Restart, scheduled: list[dict]) -> None:
    assert len(restart.finished) >= 2
    now = _database()
    assert {run_id: now[run_id] for run_id in restart.finished} == restart.finished
    assert {p: p.stat().st_size for p in restart.log_sizes if p.exists()} == restart.log_sizes
    first = datetime.fromisoformat(restart.after.first_interval)
    assert restart.after.first_interval == restart.before.first_interval
    assert _count(f"select count(*) as n from stg_order_events where arrival_hour < "
                  f"timestamp'{first + timedelta(hours=2):%Y-%m-%d %H:%M:%S}'") == restart.rows > 0
    landing = _landing()
    assert {name: landing.get(name) for name in restart.landing} == restart.landing
    assert restart.after.password == restart.password
    # The same ports, unless the start said one was taken by then (it takes another, and says so).
    for before, after, what in ((restart.before.api_port, restart.after.api_port, "The Airflow UI"),
                                (restart.before.spark_port, restart.after.spark_port, "The Spark Connect server")):
        said = f"{what}: port {before} is taken now; using {after}."
        assert before == after or said in restart.start_said, (before, after, restart.start_said)
    assert restart.after.env["AIRFLOW__API_AUTH__JWT_SECRET"] == restart.before.env["AIRFLOW__API_AUTH__JWT_SECRET"]
    assert restart.stop_said[-1].endswith("make airflow resumes them, make airflow-reset deletes them.")
    assert restart.start_said[0].startswith(f"Resuming the deployment in {CONFIG.home}")


def test_after_the_restart_the_next_interval_runs(restart: Restart, scheduled: list[dict]) -> None:
    third = datetime.fromisoformat(restart.after.first_interval) + timedelta(hours=2)
    run = next(r for r in scheduled if intervals([r])[0] == third)
    assert run["dag_run_id"] not in restart.finished
    assert run["state"] == "success" and run["run_type"] == "scheduled"
    assert datetime.fromisoformat(run["end_date"].replace("Z", "+00:00")) > restart.stopped_at


def test_make_airflow_refuses_while_it_runs(deployment: Running, capsys: pytest.CaptureFixture) -> None:
    assert main(["start", "--home", str(CONFIG.home)]) == 1
    assert f"Airflow is already running at {deployment.api_url}" in capsys.readouterr().err


def test_the_printed_cli_hint_works_in_a_plain_shell(deployment: Running) -> None:
    """As printed, in a shell whose PATH lacks the venv (the env file puts it first)."""
    done = subprocess.run(["bash", "-c", hints(CONFIG)["cli"]], env={"HOME": os.environ.get("HOME", "/tmp"),
                          "PATH": "/usr/bin:/bin"}, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert HOURLY_DAG in done.stdout and REFERENCE_DAG in done.stdout


def _outside_make() -> dict[str, str]:
    """The environment of a shell a person types into: under `make test-airflow` a nested make would say
    "make[1]: Entering directory" before the command's own output."""
    return {k: v for k, v in os.environ.items() if k not in ("MAKELEVEL", "MAKEFLAGS", "MFLAGS")}


def test_status_says_what_runs_and_the_last_runs(deployment: Running, scheduled: list[dict]) -> None:
    done = subprocess.run(["bash", "-c", hints(CONFIG)["status"]], cwd=REPO, capture_output=True, text=True,
                          timeout=300, env=_outside_make())
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.startswith(f"Airflow is running at {deployment.api_url}")
    finished = sum(run["state"] == "success" for run in scheduled)
    assert f"  {HOURLY_DAG}: {len(scheduled)} runs ({finished} success)" in done.stdout.splitlines()
    assert f"  {HOURLY_DAG} (schedule 0 * * * *): paused, starts nothing." in done.stdout.splitlines()


def test_reset_stops_it_and_deletes_what_it_lists(deployment: Running) -> None:
    """Last in this module: it deletes the deployment."""
    # SQLite's -wal and -shm files exist only while the services hold the database: gone once reset stops them
    names = sorted(p.name for p in CONFIG.home.iterdir() if not p.name.endswith(("-wal", "-shm", "-journal")))
    said: list[str] = []
    assert reset(CONFIG, say=said.append) == names
    assert said[0] == f"Stopped the deployment running from {CONFIG.home}."
    assert [line.split()[0] for line in said[2:-1]] == names
    assert not CONFIG.home.exists()
    assert deployment.alive() == {}
