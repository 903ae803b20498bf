"""`make airflow` with Airflow's metadata database on PostgreSQL, against a real server the test starts itself
(scripts/postgres_local.py: Debian's `postgresql` package, initdb and pg_ctl in a directory of its own, on a free
port; as the `postgres` user when the test runs as root; scripts/install_postgres.sh installs the package where it
is missing). As a user types it: `make airflow AIRFLOW_DB=postgresql://...` makes a new deployment whose runs, task
instances and pause state are in that database (no SQLite file); the scheduler starts the hourly DAG's interval
and its first task succeeds (a task's state goes through the api-server into the database); `make airflow-status`
reads the runs from PostgreSQL, running and stopped (`make airflow-stop` in the middle of that run);
`make airflow` resumes the deployment on the same database without AIRFLOW_DB (the run as it was) and refuses
another database; a new deployment refuses a database that already holds runs; `make airflow-reset` says what it
drops from the database, drops Airflow's tables (and nothing else) and deletes the deployment's directory. The
interval is not waited for to its end (test_airflow_deployment.py runs whole intervals, with faults, on SQLite): on
a machine at load 15 one interval took 20 minutes (2026-11-28; it was green, every task instance read back from
PostgreSQL).

Each step is checked in the database itself through psycopg2, not through the script's own reader. Not part of
`make test` (about 5 minutes on 2 cores): `make test-airflow` runs it (WINDOW_TVF_TEST_AIRFLOW=1)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from typing import Any

import pytest

from dbt_harness import REPO

sys.path.insert(0, str(REPO / "scripts"))
from airflow_local import (  # noqa: E402
    HOURLY_DAG,
    REFERENCE_DAG,
    AirflowDeploymentError,
    LocalAirflow,
    Running,
    _wait,
    dag_runs,
    reset,
    set_paused,
    stop,
)
from postgres_local import PostgresServer  # noqa: E402

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        os.environ.get("WINDOW_TVF_TEST_AIRFLOW") != "1",
        reason="starts a PostgreSQL server and a real Airflow deployment (about 5 minutes): run it with "
               "make test-airflow",
    ),
]

HOME = REPO / ".airflow" / "test-postgres"
CONFIG = LocalAirflow(home=HOME)
SERVER_DIR = REPO / ".airflow" / "test-postgres-server"
PASSWORD = "pg-Secret-42"  # distinct from the user's name, so a message that shows it is caught
RUN_TIMEOUT_S = 1800.0
ARGS = f"AIRFLOW_ARGS=--home {HOME} --hours 1 --feed-hours 1"


def _make(*args: str, timeout: float = 900) -> subprocess.CompletedProcess:
    """A make target as a person types it (not inside make test-airflow's make; no Airflow settings of this
    process)."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("MAKELEVEL", "MAKEFLAGS", "MFLAGS") and not k.startswith("AIRFLOW")}
    return subprocess.run(["make", "-s", *args], cwd=REPO, capture_output=True, text=True, timeout=timeout, env=env)


def _rows(server: PostgresServer, sql: str) -> list[tuple]:
    import psycopg2

    connection = psycopg2.connect(host=server.host, port=server.port, user=server.user, password=server.password,
                                  dbname=server.database, connect_timeout=30)
    try:
        with connection.cursor() as cursor:
            cursor.execute(sql)
            return cursor.fetchall()
    finally:
        connection.close()


def _execute(server: PostgresServer, sql: str) -> None:
    import psycopg2

    connection = psycopg2.connect(host=server.host, port=server.port, user=server.user, password=server.password,
                                  dbname=server.database, connect_timeout=30)
    connection.autocommit = True
    try:
        with connection.cursor() as cursor:
            cursor.execute(sql)
    finally:
        connection.close()


def _tables(server: PostgresServer) -> list[str]:
    return [name for (name,) in _rows(server, "select table_name from information_schema.tables where "
                                              "table_schema = 'public' order by table_name")]


def _hourly_runs(server: PostgresServer) -> list[tuple]:
    return _rows(server, f"select run_id, state, run_type, data_interval_start, start_date, end_date from dag_run "
                         f"where dag_id = '{HOURLY_DAG}' order by data_interval_start")


@pytest.fixture(scope="module")
def server() -> Any:
    """A PostgreSQL server of its own; a deployment or server an interrupted earlier run left behind goes first."""
    if HOME.exists():
        try:
            reset(CONFIG, say=lambda _: None)
        except AirflowDeploymentError:  # its server is gone: its tables with it
            stop(CONFIG, say=lambda _: None)
            shutil.rmtree(HOME)
    PostgresServer(SERVER_DIR).delete()
    started = PostgresServer(SERVER_DIR, password=PASSWORD).start()
    yield started
    if HOME.exists():
        stop(CONFIG, say=lambda _: None)
    started.delete()


@pytest.fixture(scope="module")
def first_start(server: PostgresServer) -> subprocess.CompletedProcess:
    """make airflow AIRFLOW_DB=<plain postgresql:// URL>: a new deployment on it."""
    done = _make("airflow", f"AIRFLOW_DB={server.url}", ARGS)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    running = Running.load(CONFIG.state_file)
    set_paused(running, REFERENCE_DAG, True, running.token())  # a daily DAG: nothing of this test's
    return done


@pytest.fixture(scope="module")
def first_run(server: PostgresServer, first_start: subprocess.CompletedProcess) -> dict:
    """The new deployment's interval, started by the scheduler, once its first task has succeeded; the hourly DAG
    then paused (no next hour during the test)."""
    running = Running.load(CONFIG.state_file)

    def first_task_done() -> dict | None:
        runs = dag_runs(running, HOURLY_DAG, running.token())
        return next((run for run in runs if any(ti["state"] == "success" for ti in run["tasks"].values())), None)

    run = _wait(first_task_done, "a first task's success", running, CONFIG.service_logs / "scheduler.log",
                RUN_TIMEOUT_S)
    set_paused(running, HOURLY_DAG, True, running.token())
    return run


def test_the_deployment_keeps_its_metadata_in_postgresql(
    server: PostgresServer, first_start: subprocess.CompletedProcess, first_run: dict
) -> None:
    running = Running.load(CONFIG.state_file)
    url = f"postgresql+psycopg2://{server.user}:{PASSWORD}@{server.host}:{server.port}/{server.database}"
    assert running.env["AIRFLOW__DATABASE__SQL_ALCHEMY_CONN"] == url
    assert f"AIRFLOW__DATABASE__SQL_ALCHEMY_CONN={url}" in (HOME / "env").read_text().splitlines()
    assert not (HOME / "airflow.db").exists()
    said = [line for line in first_start.stdout.splitlines() if line.startswith("Metadata database: ")]
    assert said == [f"Metadata database: {url.replace(PASSWORD, '***')}",
                    f"Metadata database: PostgreSQL, {url.replace(PASSWORD, '***')}"], said
    assert PASSWORD not in first_start.stdout + first_start.stderr
    # The interval's run and its task instances, as the scheduler and the api-server wrote them into PostgreSQL.
    assert [(run_id, run_type) for run_id, _, run_type, *_ in _hourly_runs(server)] == [
        (first_run["dag_run_id"], "scheduled")]
    instances = dict(_rows(server, f"select task_id, state from task_instance where run_id = "
                                   f"'{first_run['dag_run_id']}'"))
    assert set(instances) == set(first_run["tasks"]) and len(instances) >= 5
    done = {task for task, ti in first_run["tasks"].items() if ti["state"] == "success"}
    assert done and all(instances[task] == "success" for task in done), instances
    assert _rows(server, f"select is_paused from dag where dag_id = '{HOURLY_DAG}'") == [(True,)]


def test_status_reads_the_runs_from_postgresql_running_and_stopped(server: PostgresServer, first_run: dict) -> None:
    """Stopped in the middle of the run: the run's state stays as the database has it."""
    running = _make("airflow-status", ARGS)
    assert running.returncode == 0, running.stdout + running.stderr
    assert "metadata database: PostgreSQL, postgresql+psycopg2://airflow:***@" in running.stdout
    assert PASSWORD not in running.stdout
    stopped = _make("airflow-stop", ARGS)
    assert stopped.returncode == 0, stopped.stderr
    assert re.search(rf"^  {HOURLY_DAG}: 1 runs \(1 (running|success)\)$", running.stdout, re.MULTILINE), running.stdout
    [(state,)] = _rows(server, f"select state from dag_run where dag_id = '{HOURLY_DAG}'")
    line = f"  {HOURLY_DAG}: 1 runs (1 {state})"
    status = _make("airflow-status", ARGS)
    assert status.stdout.startswith("Airflow is stopped") and line in status.stdout.splitlines(), status.stdout


def test_a_new_deployment_refuses_a_database_that_holds_runs(server: PostgresServer, first_run: dict) -> None:
    other = REPO / ".airflow" / "test-postgres-other"
    shutil.rmtree(other, ignore_errors=True)
    done = _make("airflow", f"AIRFLOW_DB={server.url}", f"AIRFLOW_ARGS=--home {other}", timeout=300)
    assert done.returncode == 2 and "make: *** [Makefile" in done.stderr  # the script's exit 1, through make
    assert "already holds Airflow's tables with 1 runs" in done.stderr, done.stderr
    assert PASSWORD not in done.stderr
    shutil.rmtree(other, ignore_errors=True)


def test_make_airflow_resumes_on_the_same_database_and_refuses_another(
    server: PostgresServer, first_run: dict
) -> None:
    runs = [(run_id, run_type, interval, began) for run_id, _, run_type, interval, began, _ in _hourly_runs(server)]
    other = f"postgresql://{server.user}:{PASSWORD}@{server.host}:{server.port}/postgres"
    refused = _make("airflow", f"AIRFLOW_DB={other}", ARGS, timeout=300)
    assert refused.returncode == 2 and "keeps its metadata in postgresql+psycopg2://airflow:***@" in refused.stderr
    done = _make("airflow", ARGS)  # no AIRFLOW_DB: the deployment's own
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert done.stdout.startswith(f"Resuming the deployment in {HOME}")
    running = Running.load(CONFIG.state_file)
    set_paused(running, HOURLY_DAG, True, running.token())  # start unpaused it: no next hour during the test
    assert running.alive() and running.env["AIRFLOW__DATABASE__SQL_ALCHEMY_CONN"].endswith(
        f"@{server.host}:{server.port}/{server.database}")
    # The run as it was; the API (reading PostgreSQL) sees it too.
    assert [(run_id, run_type, interval, began)
            for run_id, _, run_type, interval, began, _ in _hourly_runs(server)][: len(runs)] == runs
    assert first_run["dag_run_id"] in {run["dag_run_id"] for run in dag_runs(running, HOURLY_DAG, running.token())}


def test_reset_says_what_it_drops_from_the_database_and_drops_only_airflow_tables(server: PostgresServer) -> None:
    """Last: reset stops the running deployment; Airflow's tables are gone, a table that is not Airflow's stays,
    the directory is deleted."""
    _execute(server, "create table if not exists team_notes (note text)")
    tables = _tables(server)
    done = _make("airflow-reset", ARGS)
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == f"Stopped the deployment running from {HOME}."
    said = re.fullmatch(
        rf"Dropping Airflow's tables from the metadata database postgresql\+psycopg2://airflow:\*\*\*@"
        rf"{server.host}:{server.port}/{server.database}, which hold (\d+) runs, (\d+) task instances, \d+ audit log "
        rf"entries, \d+ XCom values \(airflow db reset --skip-init\); the database itself stays\.", lines[1])
    assert said and int(said[1]) >= 1 and int(said[2]) >= 5, lines[1]
    assert lines[2] == f"  Dropped {len(tables) - 1} tables; left in it (not Airflow's): team_notes."
    assert _tables(server) == ["team_notes"]
    assert len(tables) > 40 and "dag_run" in tables and "alembic_version" in tables
    assert lines[3].startswith(f"Deleting {HOME} (")
    assert not HOME.exists()
