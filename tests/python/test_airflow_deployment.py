"""The hourly DAG under Airflow's own scheduler, as `make airflow` deploys it (scripts/airflow_local.py): api-server,
scheduler, dag-processor and triggerer with LocalExecutor, every task on one Spark Connect server. Two hourly
intervals run through the scheduler (its catch-up); every pipeline table then equals the `dag.test()` path's on
the embedded Spark over the same landing files, row for row; the UI's grid, opened in headless Chromium with the
admin's token, shows both runs green (the screenshot is kept as docs/airflow_grid.png).

Not part of `make test` (about 6 minutes on 2 cores; 10-15 before the scheduler preloaded the tasks' libraries):
`make test-airflow` runs it (WINDOW_TVF_TEST_AIRFLOW=1)."""

from __future__ import annotations

import colorsys
import json
import os
import re
import signal
import subprocess
import sys
import time
import urllib.error
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from dbt_harness import REPO
from headless_chromium import find_chromium, open_page

sys.path.insert(0, str(REPO / "scripts"))
from airflow_local import (  # noqa: E402
    HOURLY_DAG, LocalAirflow, Running, dag_runs, set_paused, start, stop, wait_for_runs,
)
from spark_cluster import _accepts_connections, free_port  # noqa: E402
from spark_supervisor import LOG_CONFIG, _session_members, server_jvm, supervisord_pids  # noqa: E402

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        os.environ.get("WINDOW_TVF_TEST_AIRFLOW") != "1",
        reason="starts a real Airflow deployment (about 6 minutes): run it with make test-airflow",
    ),
]

CONFIG = LocalAirflow(home=REPO / ".airflow" / "test-deployment", hours=2, feed_hours=1, run_reference=False)
WORK = REPO / ".spark" / "pytest" / "airflow_dag_test"
SCHEMA = "airflow_dag_test"
RUN_TIMEOUT_S = 1800.0
SCREENSHOT = REPO / "docs" / "airflow_grid.png"


@pytest.fixture(scope="module")
def deployment() -> Any:
    running = start(CONFIG)
    try:
        yield running
    finally:
        stop(CONFIG)


@pytest.fixture(scope="module")
def killed(deployment: Running) -> dict[str, Any]:
    """The Spark Connect server's JVM SIGKILLed while the second interval's build_event_windows runs (10 s into
    it, when its dbt build talks to the server); returns once supervisord has the server serving again."""
    spark_dir = Path(deployment.spark_dir)
    port = int(deployment.env["WINDOW_TVF_SPARK_REMOTE"].rsplit(":", 1)[1])
    second = (datetime.fromisoformat(deployment.first_interval) + timedelta(hours=1)).isoformat()

    def windows_running() -> dict | None:
        for run in dag_runs(deployment, HOURLY_DAG, deployment.token()):
            began = datetime.fromisoformat(run["data_interval_start"].replace("Z", "+00:00")).isoformat()
            if began == second and run["tasks"].get("build_event_windows", {}).get("state") == "running":
                return run
        return None

    run = _poll(windows_running, RUN_TIMEOUT_S)
    time.sleep(10)
    old = server_jvm(spark_dir)
    os.kill(old, signal.SIGKILL)
    killed_at = time.monotonic()
    new = _poll(lambda: (jvm := server_jvm(spark_dir)) not in (None, old) and _accepts_connections("127.0.0.1", port)
                and jvm, 300)
    return {"run_id": run["dag_run_id"], "old": old, "new": new, "port": port,
            "back_after_s": time.monotonic() - killed_at}


def _poll(ready: Any, timeout: float) -> Any:
    """Polls `ready()` until truthy; an api-server slow to answer on a loaded machine (a timeout) is tried again."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            value = ready()
            if value:
                return value
        except (OSError, urllib.error.URLError, ValueError, KeyError):
            pass
        assert time.monotonic() < deadline, f"not ready after {timeout:.0f} s"
        time.sleep(2)


@pytest.fixture(scope="module")
def scheduled(deployment: Running, killed: dict[str, Any]) -> list[dict]:
    """The scheduler's catch-up over the two intervals before now (the server killed during the second), then the
    DAG paused (so that the next hour, if it passes during the test, starts nothing)."""
    runs = wait_for_runs(deployment, HOURLY_DAG, 2, RUN_TIMEOUT_S)
    set_paused(deployment, HOURLY_DAG, True, deployment.token())
    return wait_for_runs(deployment, HOURLY_DAG, len(runs), RUN_TIMEOUT_S)


def intervals(runs: list[dict]) -> list[datetime]:
    return [datetime.fromisoformat(run["data_interval_start"].replace("Z", "+00:00")) for run in runs]


def test_the_scheduler_catches_up_the_hours_before_now_and_every_task_succeeds(
    deployment: Running, scheduled: list[dict]
) -> None:
    first = datetime.fromisoformat(deployment.first_interval)
    assert intervals(scheduled)[:2] == [first, first + timedelta(hours=1)]
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
    each dbt command's summary in one line."""
    every = (deployment.home / "logs" / f"dag_id={HOURLY_DAG}").glob("run_id=*/task_id=*/attempt=*.log")
    last = {}  # the attempts that succeeded: a task's last (the earlier ones failed with the killed server)
    for path in sorted(every, key=lambda p: int(p.stem.split("=")[1])):
        last[path.parent] = path
    logs = sorted(last.values())
    assert logs
    records = [json.loads(line) for path in logs for line in path.read_text().splitlines() if line.startswith("{")]
    assert [r["event"] for r in records if r.get("level") in ("error", "critical")] == []
    summaries = [r["event"] for r in records if str(r.get("event", "")).startswith("dbt build --select")]
    assert summaries and all(re.search(r": PASS=\d+ WARN=0 ERROR=0 SKIP=0 TOTAL=\d+ in ", s) for s in summaries)
    assert not [r for r in records if r.get("logger") == "task.stdout" and "START sql" in str(r.get("event"))]


def test_a_killed_server_comes_back_on_its_port_and_the_interval_succeeds_on_retries(
    deployment: Running, killed: dict[str, Any], scheduled: list[dict]
) -> None:
    """supervisord starts the server again (same command: same port, warehouse and metastore); the tasks that
    failed with it succeed on a retry. Its tables equal dag.test()'s: test_every_table_equals_the_dag_test_path."""
    spark_dir = Path(deployment.spark_dir)
    assert killed["new"] != killed["old"] and server_jvm(spark_dir) == killed["new"]
    cmdline = Path(f"/proc/{killed['new']}/cmdline").read_bytes().split(b"\0")
    assert f"spark.connect.grpc.binding.port={killed['port']}".encode() in cmdline
    assert f"spark.sql.warehouse.dir={spark_dir}/warehouse".encode() in cmdline
    log = (spark_dir / "supervisord.log").read_text()
    assert log.count("spawned: 'spark-connect'") == 2 and "exited: spark-connect (exit status 137; not expected)" in log
    run = next(r for r in scheduled if r["dag_run_id"] == killed["run_id"])
    assert run["state"] == "success"
    assert {t: ti["state"] for t, ti in run["tasks"].items()} == {t: "success" for t in run["tasks"]}
    assert run["tasks"]["build_event_windows"]["try_number"] >= 2, run["tasks"]["build_event_windows"]
    print(f"server back after {killed['back_after_s']:.0f} s; tries: "
          f"{ {t: ti['try_number'] for t, ti in run['tasks'].items()} }")


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
    assert " INFO " not in (spark_dir / "connect.log").read_text()
    assert (spark_dir / "connect.log").stat().st_size < 100_000


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


def test_stop_leaves_no_process_and_does_not_restart_the_server(deployment: Running, scheduled: list[dict]) -> None:
    """Last in the file: make airflow-stop's stop, supervisord included, and no restart of the server it stops."""
    spark_dir = Path(deployment.spark_dir)
    sessions = set(Running.load(CONFIG.state_file).pids.values()) | set(supervisord_pids(spark_dir))
    assert supervisord_pids(spark_dir) and server_jvm(spark_dir)
    stop(CONFIG)
    assert _session_members(sessions) == [] and supervisord_pids(spark_dir) == []
    log = (spark_dir / "supervisord.log").read_text()
    assert log.count("spawned: 'spark-connect'") == 2 and "stopped: spark-connect" in log
