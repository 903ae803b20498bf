#!/usr/bin/env python3
"""A real Airflow 3 deployment of the project's DAGs on this machine, in one command (`make airflow`):

    python scripts/airflow_local.py start [--hours 3] [--feed-hours 24] [--target connect] [--db postgresql://...]
    python scripts/airflow_local.py stop
    python scripts/airflow_local.py status
    python scripts/airflow_local.py sql "select count(*) from fct_item_sales_tumble_15m"
    python scripts/airflow_local.py reset

The first `start` makes a deployment under .airflow/deployment/ (git-ignored): a long-lived Spark Connect server
(scripts/spark_cluster.py) that every task uses, so no task starts a JVM; sample landing files for the last
`--hours` hours before now and the next `--feed-hours` (a simulated feed: each hour's files are read only by the
run after that hour ends); the metadata database (SQLite in the deployment's directory, or the PostgreSQL database
of `--db` / AIRFLOW_DB / AIRFLOW__DATABASE__SQL_ALCHEMY_CONN) and the pool the DAGs use; then Airflow's api-server
(on 127.0.0.1, a free port), scheduler, dag-processor and triggerer (LocalExecutor), each a background process
with its log in a file. The hourly DAG starts `--hours` before now: it catches up those hours one run at a time,
then keeps to its schedule. It unpauses both DAGs (the reference-examples DAG is daily without catch-up: it runs
once at once, for the last day, then daily), waits until the UI answers and prints its address, the login and
where the logs are. `stop` stops exactly what `start` started
(the process groups recorded in deployment.json), the Spark server included, and deletes nothing.

A later `start` resumes that deployment: the same metadata database (runs, task instances, task logs), Spark
warehouse and metastore, landing files (extended with the hours of the feed not yet written), login, JWT secret,
first interval and, where still free, ports; the scheduler catches up from the last finished interval. The DAG
files and the dbt project are read from the repository, so a new commit is picked up (dbt parses at every start).
A deployment whose services are only partly running (one was killed or died) is stopped and resumed by `start`.
`reset` stops a running deployment, lists what it deletes and deletes .airflow/deployment/ (on PostgreSQL it also
drops Airflow's tables from the database, `airflow db reset --skip-init`); only it deletes.
`status` says what runs, each DAG's last runs and next run (from the metadata database, also when stopped) and
where the logs are; `sql` runs one Spark SQL statement on the deployment's Spark Connect server (schema
window_tvf) and prints the rows.

Every process listens on 127.0.0.1 only: the scheduler and triggerer run with --skip-serve-logs (task logs are
local files the api-server reads), the Spark server binds 127.0.0.1.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import os
import secrets
import shlex
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Iterator

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "dags"))
sys.path.insert(0, str(REPO / "scripts"))

from spark_cluster import (  # noqa: E402
    Deployment,
    DeploymentError,
    PortTakenError,
    _our_spark_groups,
    free_port,
    require_free_port,
    session_members,
    stop_sessions,
    stop_process_groups,
)
from spark_supervisor import SupervisedConnect, stop_supervised  # noqa: E402

HOURLY_DAG = "window_tvf_orders_hourly"
REFERENCE_DAG = "window_tvf_reference_examples"
SERVICES = {
    "api-server": ["api-server", "--host", "127.0.0.1", "--port", "{port}"],
    "scheduler": ["scheduler", "--skip-serve-logs"],
    "dag-processor": ["dag-processor"],
    "triggerer": ["triggerer", "--skip-serve-logs"],
}
READY_TIMEOUT_S = 300.0
USER = "admin"


class AirflowDeploymentError(RuntimeError):
    """The deployment could not start; the message names the step and the end of its log."""


@dataclass(frozen=True)
class LocalAirflow:
    """Where the deployment lives and what it runs. Everything it writes is under `home` (AIRFLOW_HOME)."""

    home: Path = REPO / ".airflow" / "deployment"
    target: str = "connect"  # the dbt target of every task: a server target, or 'embedded' (one task at a time)
    hours: int = 3  # hourly intervals before now that the DAG catches up
    feed_hours: int = 24  # landing files written ahead of now, read as their hours pass
    spark_memory: str = "2g"
    host: str = "127.0.0.1"
    unpause_hourly: bool = True  # False: the hourly DAG stays paused (runs only what is triggered or backfilled)
    # The reference-examples DAG unpaused: it is daily without catch-up, so the scheduler runs it once for the last
    # day at once (every example model: about 3-5 minutes), then daily. False: it stays paused and never runs.
    run_reference: bool = True
    # The scheduler imports what tasks import (dbt, GX, the Spark client) before its LocalExecutor forks the
    # processes that run tasks, so no task pays for those imports (window_tvf_pipeline.preload).
    preload: bool = True
    # The Airflow Variable window_tvf_dbt_tasks: 'coarse' (a task per dbt build step) or 'per_model' (a task per dbt
    # node, astronomer-cosmos' watcher mode, rendered from the manifest of the parse at start). `make airflow`: coarse
    # unless AIRFLOW_ARGS="--dbt-tasks per_model".
    dbt_tasks: str = "coarse"
    # Airflow's metadata database: '' for SQLite in `home` (airflow.db), or a postgresql:// URL (a database that
    # holds no other Airflow's tables; the URL goes into deployment.json and env, both mode 600).
    database: str = ""
    # A new deployment's first interval; None: `hours` before the current hour. (Benchmarks that compare two
    # deployments give both the same intervals, so the same landing files.)
    first: datetime | None = None

    @property
    def sql_alchemy_conn(self) -> str:
        # SQLite admits one writer: a CLI command (a backfill creating its runs) waits up to 60 s for the
        # scheduler's transactions instead of failing with "database is locked" after 5 s.
        return self.database or f"sqlite:///{self.home / 'airflow.db'}?timeout=60"

    @property
    def state_file(self) -> Path:
        return self.home / "deployment.json"

    @property
    def service_logs(self) -> Path:
        return self.home / "services"

    @property
    def spark_dir(self) -> Path:
        return self.home / "spark-server"

    @property
    def landing_dir(self) -> Path:
        return self.home / "landing"

    @property
    def passwords_file(self) -> Path:
        return self.home / "simple_auth_manager_passwords.json.generated"

    def first_interval(self, now: datetime | None = None) -> datetime:
        if self.first is not None:
            return self.first
        now = now or datetime.now(timezone.utc)
        return now.replace(minute=0, second=0, microsecond=0) - timedelta(hours=self.hours)

    def environment(self, api_port: int, start: datetime, spark_env: dict[str, str], secret: str) -> dict[str, str]:
        """What every Airflow process (and so every task) sees: Airflow's settings, the pipeline's, the target's."""
        base_url = f"http://{self.host}:{api_port}"
        bin_dir = str(Path(sys.executable).parent)
        return {
            **{k: v for k, v in os.environ.items() if not k.startswith(("AIRFLOW", "WINDOW_TVF_"))},
            "PATH": f"{bin_dir}:{os.environ.get('PATH', '')}",
            "AIRFLOW_HOME": str(self.home),
            "AIRFLOW__CORE__DAGS_FOLDER": str(REPO / "dags"),
            # The triggerer imports the per-model tasks' trigger (window_tvf_pipeline.cosmos_watcher) from there.
            "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO / "dags"), os.environ.get("PYTHONPATH")])),
            "AIRFLOW__CORE__LOAD_EXAMPLES": "False",
            "AIRFLOW__CORE__EXECUTOR": "LocalExecutor",
            "AIRFLOW__DATABASE__SQL_ALCHEMY_CONN": self.sql_alchemy_conn,
            # Parsing a DAG file takes a few seconds; Airflow's 30 s limit is too tight on a busy 2-core machine.
            "AIRFLOW__CORE__DAGBAG_IMPORT_TIMEOUT": "300",
            "AIRFLOW__DAG_PROCESSOR__DAG_FILE_PROCESSOR_TIMEOUT": "300",
            # A DAG file parsed every 10 minutes, not every 30 s: what the DAGs render changes with a restart (a new
            # commit; the per-model DAGs' manifest is copied at the start). The DAG processor took 7.7 CPU-s of an
            # 81-s per-model interval beside the Spark server, 5.1-5.5 with this (2026-12-01; the rest: a parse
            # for each task callback request, which Airflow sends for every task a trigger ends: see
            # docs/airflow_deployment.md).
            "AIRFLOW__DAG_PROCESSOR__MIN_FILE_PROCESS_INTERVAL": "600",
            "AIRFLOW__API__BASE_URL": base_url,
            "AIRFLOW__CORE__EXECUTION_API_SERVER_URL": f"{base_url}/execution/",
            # The scheduler signs the tasks' tokens, the api-server checks them: one secret for both.
            "AIRFLOW__API_AUTH__JWT_SECRET": secret,
            "AIRFLOW__CORE__SIMPLE_AUTH_MANAGER_USERS": f"{USER}:admin",
            "AIRFLOW__CORE__SIMPLE_AUTH_MANAGER_PASSWORDS_FILE": str(self.passwords_file),
            "AIRFLOW__COSMOS__ENABLE_TELEMETRY": "False",
            # per_model: a producer's XComs are copied to an Airflow Variable when it fails (Cosmos' failure callback,
            # restored by its retry) rather than after each of its some 400 XCom pushes an interval, each a rewrite
            # of the whole copy through the api-server (docs/airflow_deployment.md).
            "AIRFLOW__COSMOS__ENABLE_WATCHER_RELIABLE_RETRY": "False",
            # The pipeline: the DAG's first interval, its landing files, GX's site, the target.
            "WINDOW_TVF_PIPELINE_START": start.strftime("%Y-%m-%dT%H:%M:%SZ"),
            # Given hours (a benchmark's): nothing is scheduled after them (an hour ending meanwhile would run
            # beside their backfill: max_active_runs does not count backfill runs).
            **({"WINDOW_TVF_PIPELINE_END": (self.first + timedelta(hours=self.hours - 1, minutes=30)).strftime(
                "%Y-%m-%dT%H:%M:%SZ")} if self.first is not None else {}),
            "WINDOW_TVF_LANDING_DIR": str(self.landing_dir),
            "WINDOW_TVF_GX_DIR": str(self.home / "great_expectations"),
            "AIRFLOW_VAR_WINDOW_TVF_TARGET": self.target,
            "WINDOW_TVF_SPARK_DIR": str(self.home / "spark-client"),
            "WINDOW_TVF_SPARK_CONF_DIR": str(REPO / "spark_conf"),
            # An embedded Spark's log lines to stdout (INFO in the task log), not stderr (ERROR).
            "WINDOW_TVF_SPARK_LOG_TARGET": "SYSTEM_OUT",
            "DBT_PROFILES_DIR": str(REPO),
            # The deployment's dbt artifacts and log, apart from `make pipeline`'s and `make test`'s (a partial parse
            # made for another target would be thrown away each time); parsed once at start (see `start`).
            "DBT_TARGET_PATH": str(self.home / "dbt" / "target"),
            "DBT_LOG_PATH": str(self.home / "dbt" / "logs"),
            # Python warnings that are no news: the Connect client's on each of dbt-spark's Hive-support requests
            # (docs/spark_clusters.md), and multiprocessing's note at exit. They would reach the task log at ERROR.
            "PYTHONWARNINGS": "ignore:Failed to set spark.sql.catalogImplementation:UserWarning,"
            "ignore:resource_tracker:UserWarning",
            "DBT_SEND_ANONYMOUS_USAGE_STATS": "False",
            "SPARK_LOCAL_IP": self.host,
            # per_model: Cosmos renders from a copy of the start's manifest (tasks rewrite DBT_TARGET_PATH's).
            "AIRFLOW_VAR_WINDOW_TVF_DBT_TASKS": self.dbt_tasks,
            "WINDOW_TVF_DBT_MANIFEST": str(self.home / "cosmos" / "manifest.json"),
            "AIRFLOW__COSMOS__CACHE_DIR": str(self.home / "cosmos" / "cache"),
            **spark_env,
        }


@dataclass
class Running:
    """A started deployment, as recorded in deployment.json."""

    home: Path
    api_url: str
    pids: dict[str, int] = field(default_factory=dict)  # service -> process group id
    spark_dir: str | None = None
    env: dict[str, str] = field(default_factory=dict)
    first_interval: str = ""

    @classmethod
    def load(cls, state_file: Path) -> Running | None:
        if not state_file.exists():
            return None
        state = json.loads(state_file.read_text())
        return cls(**{**state, "home": Path(state["home"])})

    def save(self, state_file: Path) -> None:
        state_file.write_text(json.dumps(self.__dict__, default=str, indent=1))
        state_file.chmod(0o600)  # holds the JWT secret

    def alive(self) -> dict[str, int]:
        """The recorded services still running (a recycled pid that runs something else is left alone)."""
        return {name: pid for name, pid in self.pids.items() if _runs(pid, b"airflow")}

    @property
    def api_port(self) -> int | None:
        return int(self.api_url.rsplit(":", 1)[1]) if self.api_url else None

    @property
    def spark_port(self) -> int | None:
        remote = self.env.get("WINDOW_TVF_SPARK_REMOTE")
        return int(remote.rsplit(":", 1)[1]) if remote else None

    @property
    def password(self) -> str:
        return json.loads((self.home / "simple_auth_manager_passwords.json.generated").read_text())[USER]

    def token(self) -> str:
        """An access token of the admin user (the UI takes it as the `_token` cookie)."""
        body = json.dumps({"username": USER, "password": self.password}).encode()
        return api(self.api_url, "/auth/token", body=body, method="POST")["access_token"]

    def airflow(self, *args: str, timeout: float = 600) -> subprocess.CompletedProcess:
        """An `airflow` CLI command against this deployment."""
        return subprocess.run(
            [str(Path(sys.executable).with_name("airflow")), *args],
            env=self.env, capture_output=True, text=True, timeout=timeout,
        )


def _runs(pid: int, marker: bytes) -> bool:
    try:
        return marker in Path(f"/proc/{pid}/cmdline").read_bytes() and os.getpgid(pid) == pid
    except OSError:
        return False


def api(base_url: str, path: str, token: str | None = None, body: bytes | None = None, method: str = "GET") -> Any:
    """One call to the api-server; JSON in and out."""
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    request = urllib.request.Request(base_url + path, data=body, headers=headers, method=method)
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.load(response)


def _tail(path: Path, lines: int = 25) -> str:
    text = path.read_text(errors="replace") if path.exists() else "(no log)"
    return "\n".join(text.splitlines()[-lines:])


def _wait(ready: Any, what: str, running: Running, log: Path, timeout: float = READY_TIMEOUT_S,
          every: float = 1.0) -> Any:
    """Polls `ready()` every `every` seconds until it returns a truthy value; fails early when a service died."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            value = ready()
            if value:
                return value
        except (OSError, urllib.error.URLError, ValueError, KeyError):
            pass
        dead = sorted(set(running.pids) - set(running.alive()))
        if dead:
            name = dead[0]
            raise AirflowDeploymentError(
                f"{name} stopped while waiting for {what}; end of {running.home / 'services' / (name + '.log')}:\n"
                + _tail(running.home / "services" / f"{name}.log")
            )
        if time.monotonic() > deadline:
            raise AirflowDeploymentError(f"{what}: not ready after {timeout:.0f} s; end of {log}:\n{_tail(log)}")
        time.sleep(every)


def _run_step(args: list[str], env: dict[str, str], log: Path, what: str) -> None:
    with log.open("ab") as out:
        done = subprocess.run(args, env=env, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    if done.returncode != 0:
        raise AirflowDeploymentError(f"{what} failed (exit {done.returncode}); end of {log}:\n{_tail(log)}")


def _start_parse(target: str, env: dict[str, str], log: Path) -> subprocess.Popen:
    with log.open("ab") as out:
        return subprocess.Popen(
            [str(Path(sys.executable).with_name("dbt")), "parse", "--project-dir", str(REPO), "--profiles-dir",
             str(REPO), "--target", target], env=env, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
        )


def _write_env_file(path: Path, env: dict[str, str]) -> None:
    """The deployment's settings for the Airflow CLI (`set -a; . env; set +a`); it holds the JWT secret. The venv's
    bin goes first on PATH, so `airflow` and `dbt` are the deployment's in any shell."""
    bin_dir = shlex.quote(str(Path(sys.executable).parent))
    path.write_text(f'PATH={bin_dir}:"$PATH"\n' + "".join(
        f"{k}={shlex.quote(v)}\n" for k, v in env.items()
        if k.startswith(("AIRFLOW", "WINDOW_TVF_", "DBT_", "SPARK_", "PYTHONWARNINGS"))))
    path.chmod(0o600)


def _write_local_settings(path: Path) -> None:
    """Airflow imports AIRFLOW_HOME/config/airflow_local_settings.py in each of its processes at start: in the
    scheduler's, this one imports the libraries the tasks import, before the LocalExecutor forks its workers."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f'''"""Written by scripts/airflow_local.py (make airflow): the scheduler imports the libraries the tasks
import, once; its LocalExecutor's workers, forked from it, and the task processes they fork start with them."""

import sys

if sys.argv[1:2] == ["scheduler"]:
    sys.path.insert(0, {str(REPO / "dags")!r})
    from window_tvf_pipeline.preload import preload

    preload()
''')


def _write_feed(config: LocalAirflow, first: datetime, say: Any) -> None:
    """The sample landing files from `first` to `feed_hours` after now. Files already there are kept as they are
    (the runs read them): only the hours not yet written are added, so a resumed deployment's feed goes on."""
    from window_tvf_pipeline.generate import write_landing
    from window_tvf_pipeline.landing import EVENTS, PRICES

    now_hour = datetime.now(timezone.utc).replace(minute=0, second=0, microsecond=0)
    # A given first interval (a benchmark's): exactly its hours and the feed's, whenever it starts.
    behind = config.hours if config.first is not None else max(int((now_hour - first) / timedelta(hours=1)), 0)
    hours = behind + config.feed_hours
    added, lines, kept = [], 0, 0
    with tempfile.TemporaryDirectory(dir=config.home, prefix="landing-") as scratch:
        write_landing(Path(scratch), first, hours)
        for folder in (EVENTS, PRICES):
            (config.landing_dir / folder).mkdir(parents=True, exist_ok=True)
            for new in sorted((Path(scratch) / folder).iterdir()):
                target = config.landing_dir / folder / new.name
                if target.exists():
                    kept += 1
                    continue
                shutil.copyfile(new, target)
                added.append(target)
                lines += new.read_text().count("\n") if folder == EVENTS else 0
    last = first + timedelta(hours=hours - 1)
    say(f"Sample landing data in {config.landing_dir}: arrival hours {first:%Y-%m-%d %H:00} to {last:%Y-%m-%d %H:00} "
        + (f"UTC; {len(added)} files written ({lines} event lines)" if added else "UTC; no new hour to write")
        + (f", {kept} kept as they were" if kept else ""))


def _port(host: str, wanted: int | None, what: str, say: Any, reuse_address: bool = False) -> int:
    """`wanted` (the port a resumed deployment had) if it is still free, else a free one. `reuse_address`: the server
    binds with SO_REUSEADDR (uvicorn does), so the connections its last run closed (TIME_WAIT, a minute after a stop)
    do not keep it from the port; checked the same way."""
    if wanted:
        try:
            if reuse_address:
                with socket.socket() as probe:
                    probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                    probe.bind((host, wanted))
            else:
                require_free_port(host, wanted, what)
            return wanted
        except (OSError, PortTakenError):
            port = free_port(host)
            say(f"{what}: port {wanted} is taken now; using {port}.")
            return port
    return free_port(host)


def start(config: LocalAirflow, say: Any = print) -> Running:
    """Starts the deployment and returns it once the UI answers and the DAGs are unpaused: the recorded one in
    config.home if there is one (resumed with its database, tables, landing files, login and secret), else a new
    one. Deletes nothing: `reset` does."""
    from window_tvf_pipeline.config import Settings

    if config.database:
        config = replace(config, database=check_database_url(config.database))
    previous = Running.load(config.state_file)
    if previous is None and config.home.exists() and any(config.home.iterdir()):
        raise AirflowDeploymentError(
            f"{config.home} holds files but no {config.state_file.name}: not a deployment this script can resume. "
            f"make airflow-reset deletes it."
        )
    if previous is not None and previous.alive():
        down = sorted(set(SERVICES) - set(previous.alive()))
        if not down:
            raise AirflowDeploymentError(f"Airflow is already running at {previous.api_url}; make airflow-stop stops it.")
        # A service was killed or died: what is left (its task processes included) is stopped, then all resumed,
        # so that no task of the old processes runs beside its retry.
        say(f"The deployment in {config.home} is only partly running ({', '.join(down)} not running): stopping what "
            f"is left of it, then resuming it.")
        stop(config, say=lambda _: None)
        previous = Running.load(config.state_file)
    resume = previous is not None and bool(previous.env)
    if resume:
        target = previous.env.get("AIRFLOW_VAR_WINDOW_TVF_TARGET")
        if target != config.target:
            raise AirflowDeploymentError(
                f"the deployment in {config.home} runs target {target!r}, not {config.target!r}; its tables are "
                f"there. make airflow-reset deletes it, then make airflow AIRFLOW_ARGS='--target {config.target}'."
            )
        recorded = previous.env.get("AIRFLOW__DATABASE__SQL_ALCHEMY_CONN", "")
        if not recorded.startswith("sqlite"):  # a PostgreSQL deployment keeps its database
            if config.database and config.database != recorded:
                raise AirflowDeploymentError(
                    f"the deployment in {config.home} keeps its metadata in {masked(recorded)}, not "
                    f"{masked(config.database)}; its runs are there. make airflow-reset deletes it (and drops its "
                    f"tables), then make airflow AIRFLOW_DB=... starts a new one.")
            config = replace(config, database=recorded)
        elif config.database:
            raise AirflowDeploymentError(
                f"the deployment in {config.home} keeps its metadata in SQLite ({config.home / 'airflow.db'}), not "
                f"{masked(config.database)}; its runs are there. make airflow-reset deletes it, then make airflow "
                f"AIRFLOW_DB=... starts a new one.")
        first = datetime.fromisoformat(previous.first_interval)
        say(f"Resuming the deployment in {config.home} (first interval {first:%Y-%m-%d %H:%M} UTC): its runs, task "
            f"logs, tables, landing files and login are kept; make airflow-reset deletes them.")
    else:
        first = config.first_interval()
        if config.database:
            _require_empty(config.database)
    if config.database:
        if resume:
            database_contents(config.database)  # reachable, before anything starts
        say(f"Metadata database: {masked(config.database)}")
    config.service_logs.mkdir(parents=True, exist_ok=True)
    _write_feed(config, first, say)

    running = Running(config.home, api_url="", first_interval=first.isoformat())
    spark = SupervisedConnect(config.spark_dir)  # restarted by supervisord when it dies (scripts/spark_supervisor.py)
    parse = None
    try:
        # dbt parses the project once here, beside the Spark start; every task then parses only what changed.
        port = _port(config.host, previous.api_port if resume else None, "The Airflow UI", say, reuse_address=True)
        spark_port = _port(config.host, previous.spark_port if resume else None, "The Spark Connect server", say)
        spark_env = (
            {"WINDOW_TVF_TARGET": "connect", "WINDOW_TVF_SPARK_REMOTE": f"sc://{config.host}:{spark_port}"}
            if config.target == "connect" else {}
        )
        running.api_url = f"http://{config.host}:{port}"
        # The same secret on a resume: tokens and the login survive a restart.
        secret = previous.env["AIRFLOW__API_AUTH__JWT_SECRET"] if resume else secrets.token_urlsafe(32)
        running.env = config.environment(port, first, spark_env, secret)
        parse_log = config.service_logs / "dbt-parse.log"
        parse = _start_parse(config.target, running.env, parse_log)
        if config.target == "connect":
            began = time.monotonic()
            running.spark_dir = str(config.spark_dir)
            running.save(config.state_file)
            # Another process may bind the chosen port before the server does: then it starts on other ports, and
            # dbt parses again with the address it has (the parse's profile names it).
            spark.start_on_free_ports(config.host, config.spark_memory, say=say, first_ports={"connect": spark_port})
            say(f"Spark Connect server: {spark.env['WINDOW_TVF_SPARK_REMOTE']} (ready in {time.monotonic() - began:.0f} s)")
            if spark.env != spark_env:  # the first parse's address is stale: stop it, parse with the new one
                parse.kill()
                parse.wait()
                running.env.update(spark.env)
                parse = _start_parse(config.target, running.env, parse_log)
        elif config.target != "embedded":
            raise AirflowDeploymentError(f"target {config.target!r}: make airflow starts 'connect' or 'embedded'")
        if parse.wait() != 0:
            raise AirflowDeploymentError(f"dbt parse failed; end of {parse_log}:\n{_tail(parse_log)}")
        manifest = Path(running.env["WINDOW_TVF_DBT_MANIFEST"])
        manifest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(Path(running.env["DBT_TARGET_PATH"]) / "manifest.json", manifest)
        running.save(config.state_file)
        _write_env_file(config.home / "env", running.env)
        if config.preload:
            _write_local_settings(config.home / "config" / "airflow_local_settings.py")
        migrate_log = config.service_logs / "db-migrate.log"
        airflow = str(Path(sys.executable).with_name("airflow"))
        _run_step([airflow, "db", "migrate"], running.env, migrate_log, "airflow db migrate")
        settings = Settings.from_environment(running.env)
        if settings.spark_pool != "default_pool":
            _run_step([airflow, "pools", "set", settings.spark_pool, "1", "Tasks that start Spark"], running.env,
                      migrate_log, "airflow pools set")
        for name, args in SERVICES.items():
            with (config.service_logs / f"{name}.log").open("ab") as out:
                process = subprocess.Popen(
                    [airflow, *(a.format(port=port) for a in args)], env=running.env, stdout=out,
                    stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True,
                )
            running.pids[name] = process.pid
            running.save(config.state_file)  # at once: `stop` finds it even if the start fails half way
        api_log = config.service_logs / "api-server.log"
        _wait(lambda: api(running.api_url, "/api/v2/monitor/health"), "the api-server", running, api_log)
        token = _wait(running.token, "a login token", running, api_log)
        for dag_id in (HOURLY_DAG, REFERENCE_DAG):
            _wait(lambda: api(running.api_url, f"/api/v2/dags/{dag_id}", token), f"the DAG {dag_id} to be parsed",
                  running, config.service_logs / "dag-processor.log")
        if config.unpause_hourly:
            set_paused(running, HOURLY_DAG, False, token)
        if config.run_reference:
            set_paused(running, REFERENCE_DAG, False, token)
    except BaseException:
        if parse is not None and parse.poll() is None:
            parse.kill()
        stop(config, say=lambda _: None)
        raise
    return running


def _require_empty(url: str) -> None:
    """A new deployment's PostgreSQL database holds no Airflow runs: another deployment's would mix with its own."""
    tables, counts = database_contents(url)
    if counts.get("dag_run"):
        raise AirflowDeploymentError(
            f"the metadata database {masked(url)} already holds Airflow's tables with {_describe(counts)}: not a "
            f"new deployment's. Give an empty database, or drop them (airflow db reset --skip-init with that URL).")


def set_paused(running: Running, dag_id: str, paused: bool, token: str) -> None:
    api(running.api_url, f"/api/v2/dags/{dag_id}", token, json.dumps({"is_paused": paused}).encode(), "PATCH")


def dag_runs(running: Running, dag_id: str, token: str, tasks: bool = True) -> list[dict]:
    """The DAG's runs, oldest logical date first, each with its task instances (`tasks`: task_id -> instance) unless
    `tasks` is False."""
    runs = api(running.api_url, f"/api/v2/dags/{dag_id}/dagRuns?order_by=logical_date&limit=1000", token)["dag_runs"]
    if not tasks:
        return runs
    for run in runs:
        # The API lists 50 task instances unless asked for more; a per-model run has more than 50 tasks.
        instances = api(running.api_url, f"/api/v2/dags/{dag_id}/dagRuns/{run['dag_run_id']}/taskInstances?limit=1000",
                        token)["task_instances"]
        run["tasks"] = {ti["task_id"]: ti for ti in instances}
    return runs


def wait_for_runs(running: Running, dag_id: str, count: int, timeout: float) -> list[dict]:
    """Waits until the DAG has `count` finished runs and none running; returns every run, with its task instances.

    Polls the run list alone, every 3 s, and lists the task instances once at the end: listing them every second
    (0.1 s on the api-server per run and request, more with one task per dbt model) was nearly half of the
    api-server's request time during a benchmark, beside the runs it measured."""
    def finished() -> bool:
        runs = dag_runs(running, dag_id, running.token(), tasks=False)
        done = [r for r in runs if r["state"] in ("success", "failed")]
        return len(done) >= count and len(done) == len(runs)

    _wait(finished, f"{count} finished runs of {dag_id}", running, running.home / "services" / "scheduler.log", timeout,
          every=3.0)
    return dag_runs(running, dag_id, running.token())





def stop(config: LocalAirflow, say: Any = print) -> bool:
    """Stops the recorded services (with their task processes) and the Spark server; True if anything ran."""
    running = Running.load(config.state_file)
    if running is None:
        say(f"No deployment recorded in {config.state_file}.")
        return False
    alive = running.alive()
    # By session, also when a service died and left task processes behind.
    stop_sessions(set(running.pids.values()))
    groups = list(alive.values())
    spark_groups = stop_supervised(Path(running.spark_dir)) if running.spark_dir else []  # no restart on stop
    running.pids = {}
    running.save(config.state_file)
    say(f"Stopped {len(groups)} Airflow processes and {len(spark_groups)} Spark server(s). Runs, logs, tables, "
        f"landing files and the login stay in {config.home}: make airflow resumes them, make airflow-reset deletes "
        f"them.")
    return bool(groups or spark_groups)


def _utc(value: str | datetime | None) -> datetime | None:
    """A date of Airflow's UtcDateTime columns: text on SQLite ('2026-11-28 06:00:00.000000', UTC), a datetime with
    its zone on PostgreSQL."""
    if not value:
        return None
    moment = value if isinstance(value, datetime) else datetime.fromisoformat(value)
    return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)


# The metadata database: SQLite in the deployment's directory (the default) or PostgreSQL (a URL).
DATABASE_SCHEMES = ("sqlite", "postgresql", "postgresql+psycopg2")


def masked(url: str) -> str:
    """The URL with its password as *** (for messages)."""
    from sqlalchemy.engine import make_url

    return make_url(url).render_as_string(hide_password=True)


def check_database_url(url: str) -> str:
    """The URL Airflow is given, if make airflow runs it on that database (SQLite, or PostgreSQL through psycopg2),
    else a clear error. A bare postgresql:// becomes postgresql+psycopg2:// (the form Airflow's database guide
    recommends): SQLAlchemy 2.1, which Airflow 3.3.2 runs on, would pick psycopg 3 for it, which is not installed."""
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError

    try:
        parsed = make_url(url)
    except ArgumentError as error:
        raise AirflowDeploymentError(f"the metadata database URL {url!r} is not a URL: {error}") from error
    if parsed.drivername not in DATABASE_SCHEMES:
        raise AirflowDeploymentError(
            f"the metadata database URL {masked(url)}: make airflow runs Airflow on SQLite (its default) or "
            f"PostgreSQL (postgresql://user:password@host:port/database), not {parsed.drivername}")
    if parsed.drivername == "postgresql":
        return parsed.set(drivername="postgresql+psycopg2").render_as_string(hide_password=False)
    return url


def _metadata_url(config: LocalAirflow) -> str:
    """The deployment's database as recorded at its start; the configured one if none is recorded."""
    running = Running.load(config.state_file)
    return (running.env.get("AIRFLOW__DATABASE__SQL_ALCHEMY_CONN") if running else None) or config.sql_alchemy_conn


@contextlib.contextmanager
def metadata(url: str) -> Iterator[Any]:
    """A SQLAlchemy connection to the metadata database (read-only on SQLite), or None when its SQLite file does not
    exist yet. A PostgreSQL server that cannot be reached is an AirflowDeploymentError that names it."""
    from sqlalchemy import create_engine
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import OperationalError
    from sqlalchemy.pool import NullPool

    parsed = make_url(url)
    if parsed.drivername == "sqlite":
        path = Path(parsed.database or "")
        if not path.exists():
            yield None
            return
        engine = create_engine(f"sqlite:///file:{path}?mode=ro&uri=true", poolclass=NullPool,
                               connect_args={"timeout": 30})
    else:
        engine = create_engine(check_database_url(url), poolclass=NullPool, connect_args={"connect_timeout": 10})
    try:
        try:
            connection = engine.connect()
        except OperationalError as error:
            raise AirflowDeploymentError(
                f"the metadata database {masked(url)} cannot be reached: {str(error.orig).strip()}") from error
        with connection:
            yield connection
    finally:
        engine.dispose()


# The tables whose rows reset counts before it drops them: what a team would miss.
COUNTED_TABLES = {"dag_run": "runs", "task_instance": "task instances", "log": "audit log entries",
                  "xcom": "XCom values"}


def database_contents(url: str) -> tuple[list[str], dict[str, int]]:
    """The tables in the metadata database and the rows of COUNTED_TABLES (([], {}) when it holds none)."""
    from sqlalchemy import inspect, text

    with metadata(url) as db:
        if db is None:
            return [], {}
        tables = sorted(inspect(db).get_table_names())
        counts = {name: db.execute(text(f"select count(*) from {name}")).scalar_one()
                  for name in COUNTED_TABLES if name in tables}
    return tables, counts


def _describe(counts: dict[str, int]) -> str:
    return ", ".join(f"{counts[name]} {what}" for name, what in COUNTED_TABLES.items() if name in counts)


def _span(start: datetime | None, end: datetime | None) -> str:
    if start is None or end is None:
        return "-"
    if start == end:  # a trigger timetable (Airflow 3's @daily): a point in time, no interval
        return f"the run of {start:%Y-%m-%d %H:%M}"
    return f"{start:%Y-%m-%d %H:%M} to {end:%Y-%m-%d %H:%M}" if end.date() != start.date() or end - start >= timedelta(
        days=1) else f"{start:%Y-%m-%d %H:%M}-{end:%H:%M}"


def _in(delta: timedelta) -> str:
    minutes = max(int(delta.total_seconds() // 60), 0)
    return f"{minutes // 60} h {minutes % 60:02d} min" if minutes >= 60 else f"{minutes} min"


def schedule_lines(config: LocalAirflow, now: datetime | None = None) -> list[str]:
    """What each DAG runs and when, from the metadata database (what the scheduler itself reads): paused or not, the
    run now active, the next interval and when it is due, and how many intervals are due at once (catch-up)."""
    from sqlalchemy import text

    now = now or datetime.now(timezone.utc)
    lines = []
    with metadata(_metadata_url(config)) as db:
        if db is None:
            return ["No metadata database yet."]
        for dag_id, paused, timetable, start, end, after in db.execute(text(
            "select dag_id, is_paused, timetable_summary, next_dagrun_data_interval_start, "
            "next_dagrun_data_interval_end, next_dagrun_create_after from dag where dag_id in (:hourly, :reference) "
            "order by dag_id"), {"hourly": HOURLY_DAG, "reference": REFERENCE_DAG},
        ).fetchall():
            start, end, after = _utc(start), _utc(end), _utc(after)
            active = db.execute(text(
                "select data_interval_start, data_interval_end, state from dag_run where dag_id = :dag_id and state "
                "in ('queued', 'running') order by data_interval_start"), {"dag_id": dag_id},
            ).fetchall()
            line = f"{dag_id} (schedule {timetable})"
            if paused:
                lines.append(f"{line}: paused, starts nothing.")
                continue
            parts = [f"{state} now: {_span(_utc(a), _utc(b))} UTC" for a, b, state in active]
            due_at = after or end
            if start is None or end is None or due_at is None:
                parts.append("no further interval scheduled")
            elif due_at <= now:
                step = end - start
                due = int((now - end) / step) + 1 if step > timedelta(0) else 1
                last_end = end + step * (due - 1)
                parts.append(
                    f"next {_span(start, end)} UTC, due now"
                    + (f" ({due} intervals due, to {last_end:%Y-%m-%d %H:%M}, one run at a time)" if due > 1 else "")
                    + f"; then the next at {last_end + step:%Y-%m-%d %H:%M} UTC (in {_in(last_end + step - now)})"
                )
            else:
                what = "next run" if start == end else f"next {_span(start, end)} UTC,"
                parts.append(f"{what} at {due_at:%Y-%m-%d %H:%M} UTC (in {_in(due_at - now)})")
            lines.append(f"{line}: " + "; ".join(parts) + ".")
    return lines or ["The DAGs are not in the metadata database yet (the dag-processor has not parsed them)."]


def last_runs(config: LocalAirflow, per_dag: int = 5) -> list[str]:
    """Each DAG's newest runs: interval, state, type, when and how long."""
    from sqlalchemy import text

    lines = []
    with metadata(_metadata_url(config)) as db:
        if db is None:
            return []
        for dag_id in (HOURLY_DAG, REFERENCE_DAG):
            counts = {state: n for state, n in db.execute(text(
                "select state, count(*) from dag_run where dag_id = :dag_id group by state"), {"dag_id": dag_id})}
            total = sum(counts.values())
            lines.append(f"{dag_id}: {total} runs" + (
                " (" + ", ".join(f"{n} {state}" for state, n in sorted(counts.items())) + ")" if total else ""))
            for a, b, state, run_type, began, ended in db.execute(text(
                "select data_interval_start, data_interval_end, state, run_type, start_date, end_date from dag_run "
                "where dag_id = :dag_id order by data_interval_start desc limit :n"), {"dag_id": dag_id, "n": per_dag},
            ).fetchall():
                took = (f", {(_utc(ended) - _utc(began)).total_seconds():.0f} s" if began and ended else "")
                lines.append(f"  {_span(_utc(a), _utc(b))} UTC  {state:<8} {run_type}"
                             + (f", started {_utc(began):%Y-%m-%d %H:%M:%S}" if began else "") + took)
    return lines


def summary(config: LocalAirflow, running: Running) -> list[str]:
    remote = running.env.get("WINDOW_TVF_SPARK_REMOTE")
    spark = f"the Spark Connect server {remote}" if remote else "the embedded Spark, one task at a time"
    return [
        f"Airflow UI: {running.api_url}  (login: {USER} / {running.password}; the password is in "
        f"{config.passwords_file})",
        "What runs (from the metadata database):",
        *(f"  {line}" for line in schedule_lines(config)),
        f"Tasks run on {spark} (target {running.env.get('AIRFLOW_VAR_WINDOW_TVF_TARGET')}).",
        f"Metadata database: {database_name(running)}",
        f"Logs: services in {config.service_logs}/, task logs in {config.home / 'logs'}/"
        + (f", Spark server in {running.spark_dir}/connect.log" if running.spark_dir else ""),
        f"Airflow CLI against it: {hints(config)['cli']}",
        f"Query its tables: {hints(config)['sql']}",
        f"State: {hints(config)['status']}; stop: {hints(config)['stop']} (keeps everything; make airflow resumes); "
        f"delete everything: {hints(config)['reset']}",
    ]


def database_name(running: Running) -> str:
    url = running.env.get("AIRFLOW__DATABASE__SQL_ALCHEMY_CONN", "")
    return f"SQLite, {running.home / 'airflow.db'}" if url.startswith("sqlite") else f"PostgreSQL, {masked(url)}"


def hints(config: LocalAirflow) -> dict[str, str]:
    """The commands the messages print, as they work in the repository's directory (tested as printed)."""
    home = "" if config.home == LocalAirflow.home else f' AIRFLOW_ARGS="--home {config.home}"'
    return {
        "cli": f"set -a; . {config.home / 'env'}; set +a; airflow dags list",
        "sql": f'make airflow-sql SQL="show tables"{home}',
        "status": f"make airflow-status{home}",
        "stop": f"make airflow-stop{home}",
        "reset": f"make airflow-reset{home}",
    }


def status(config: LocalAirflow, say: Any = print) -> bool:
    """What runs, the DAGs' state and last runs, where the logs are; True if the deployment is running."""
    running = Running.load(config.state_file)
    if running is None:
        say(f"No deployment in {config.home}; make airflow starts one.")
        return False
    alive = running.alive()
    spark = _our_spark_groups(Path(running.spark_dir)) if running.spark_dir else []
    down = sorted(set(SERVICES) - set(alive))
    if alive:
        say(f"Airflow is running at {running.api_url} (login: {USER} / {running.password})"
            + (f"; NOT running: {', '.join(down)} (make airflow stops the rest and resumes it)" if down
               else "; api-server, scheduler, dag-processor, triggerer up")
            + (f"; Spark Connect server {running.env['WINDOW_TVF_SPARK_REMOTE']} "
               + ("up" if spark else "NOT running") if running.env.get("WINDOW_TVF_SPARK_REMOTE") else "") + ".")
    else:
        say(f"Airflow is stopped; make airflow resumes the deployment in {config.home} (make airflow-reset deletes it).")
    first = datetime.fromisoformat(running.first_interval) if running.first_interval else None
    say(f"Deployment: {config.home}" + (f", first interval {first:%Y-%m-%d %H:%M} UTC" if first else "")
        + (f"; metadata database: {database_name(running)}" if running.env else ""))
    try:
        say("Schedule" + (" (as the scheduler will see it when started)" if not alive else "") + ":")
        for line in schedule_lines(config):
            say(f"  {line}")
        say("Last runs:")
        for line in last_runs(config):
            say(f"  {line}")
    except AirflowDeploymentError as error:  # a PostgreSQL server that is down: the rest still holds
        say(f"  ({error})")
    say(f"Logs: services in {config.service_logs}/, task logs in {config.home / 'logs'}/"
        + (f", Spark server in {running.spark_dir}/connect.log" if running.spark_dir else ""))
    return bool(alive)


def run_sql(config: LocalAirflow, statement: str, rows: int = 100, say: Any = print) -> None:
    """One Spark SQL statement on the running deployment's Spark Connect server, in the pipeline's schema; prints
    at most `rows` rows. Goes through the server the tasks use, so it sees their tables and takes no lock."""
    running = Running.load(config.state_file)
    if running is None or not running.alive():
        raise AirflowDeploymentError("Airflow is not running: make airflow starts it (its tables are on its Spark server).")
    remote = running.env.get("WINDOW_TVF_SPARK_REMOTE")
    if not remote:
        raise AirflowDeploymentError(
            "this deployment runs the embedded target: its tables are in one task's Spark at a time, there is no "
            "server to ask. Query them after make airflow-stop with the embedded Spark (docs/airflow_deployment.md).")
    from pyspark.errors import PySparkException
    from pyspark.sql import SparkSession

    # pyspark logs each failed query with its JVM stack trace as JSON on stderr; the error below says it shorter.
    logging.getLogger("SQLQueryContextLogger").setLevel(logging.CRITICAL)
    schema = running.env.get("WINDOW_TVF_SCHEMA", "window_tvf")
    spark = SparkSession.builder.remote(remote).getOrCreate()
    try:
        if spark.catalog.databaseExists(schema):
            spark.sql(f"use {schema}")
        else:
            say(f"(the schema {schema} does not exist yet: the first run of {HOURLY_DAG} creates it)")
        spark.sql(statement).show(n=rows, truncate=False)
    except PySparkException as error:
        raise AirflowDeploymentError(str(error).split("\n\nJVM stacktrace:")[0]) from error
    finally:
        spark.stop()


# What each entry of a deployment's home holds, for reset's list.
CONTENTS = {
    "airflow.db": "the metadata database (SQLite): every run, task instance and the DAGs' pause state",
    "logs": "task logs",
    "spark-server": "the Spark server's warehouse and metastore: every table",
    "spark-client": "the tasks' Spark scratch files",
    "landing": "the sample landing files",
    "great_expectations": "Great Expectations' results and Data Docs",
    "dbt": "dbt's artifacts and log",
    "services": "the services' logs",
    "simple_auth_manager_passwords.json.generated": "the login's password",
    "deployment.json": "the record of ports, secret and settings",
    "env": "the settings file for the Airflow CLI",
    "config": "airflow_local_settings.py",
    "airflow.cfg": "the configuration Airflow wrote at its first start",
    "cosmos": "per_model's dbt manifest and astronomer-cosmos' cache (partial parse)",
    "tables.json": "every pipeline table, dumped by make bench-airflow-tasks",
}


def _size(path: Path) -> int:
    if path.is_file():
        return path.stat().st_size
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file() and not f.is_symlink())


def reset(config: LocalAirflow, say: Any = print) -> list[str]:
    """Stops the deployment if it runs, says what it deletes, deletes config.home; returns the names deleted."""
    if not config.home.exists():
        say(f"Nothing to delete: {config.home} does not exist.")
        return []
    if config.state_file.exists() and stop(config, say=lambda _: None):
        say(f"Stopped the deployment running from {config.home}.")
    running = Running.load(config.state_file)
    url = running.env.get("AIRFLOW__DATABASE__SQL_ALCHEMY_CONN", "") if running else ""
    if url and not url.startswith("sqlite"):
        try:
            _drop_airflow_tables(url, running.env, config.service_logs / "db-reset.log", say)
        except AirflowDeploymentError as error:
            raise AirflowDeploymentError(
                f"{error}\nNothing deleted. Start that database server and run this again; or, if it is gone for "
                f"good, delete {config.home} by hand.") from error
    entries = sorted(config.home.iterdir())
    say(f"Deleting {config.home} ({_size(config.home) / 2**20:.1f} MiB):")
    for entry in entries:
        say(f"  {entry.name:<46} {_size(entry) / 2**20:9.1f} MiB  {CONTENTS.get(entry.name, '')}")
    shutil.rmtree(config.home)
    say("Deleted. The next make airflow starts a new deployment (new landing data, login and ports; catch-up from "
        "--hours before then).")
    return [entry.name for entry in entries]


def _drop_airflow_tables(url: str, env: dict[str, str], log: Path, say: Any) -> None:
    """A PostgreSQL deployment's metadata lives outside its directory: says what is there, then drops Airflow's
    tables with Airflow's own `airflow db reset --skip-init` (its models' tables and alembic_version; the database
    and any table that is not Airflow's stay)."""
    tables, counts = database_contents(url)
    if not tables:
        say(f"The metadata database {masked(url)} holds no tables: nothing to drop there.")
        return
    say(f"Dropping Airflow's tables from the metadata database {masked(url)}, which hold {_describe(counts)} "
        f"(airflow db reset --skip-init); the database itself stays.")
    log.parent.mkdir(parents=True, exist_ok=True)
    _run_step([str(Path(sys.executable).with_name("airflow")), "db", "reset", "--skip-init", "--yes"], env, log,
              "airflow db reset --skip-init")
    left, _ = database_contents(url)
    say(f"  Dropped {len(tables) - len(left)} tables"
        + (f"; left in it (not Airflow's): {', '.join(left)}." if left else "; none is left in it."))


def _database_argument(given: str, recorded: Running | None) -> str:
    """--db (AIRFLOW_DB) if given; else AIRFLOW__DATABASE__SQL_ALCHEMY_CONN, as a team configures Airflow, for a new
    deployment (a resumed one keeps the database it recorded, and a note says the variable is not used)."""
    if given:
        return check_database_url(given)
    from_env = os.environ.get("AIRFLOW__DATABASE__SQL_ALCHEMY_CONN", "")
    if not from_env:
        return ""
    if recorded is not None and recorded.env:
        try:
            same = check_database_url(from_env) == recorded.env.get("AIRFLOW__DATABASE__SQL_ALCHEMY_CONN")
        except AirflowDeploymentError:
            same = False
        if not same:
            print(f"Note: AIRFLOW__DATABASE__SQL_ALCHEMY_CONN ({masked(from_env)}) is not used: the deployment in "
                  f"{recorded.home} keeps its own metadata database.", file=sys.stderr)
        return ""
    return check_database_url(from_env)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("action", choices=("start", "stop", "status", "sql", "reset"))
    parser.add_argument("statement", nargs="?", help="sql: the Spark SQL statement")
    parser.add_argument("--hours", type=int, default=3,
                        help="hourly intervals before now to catch up (default 3; a new deployment only)")
    parser.add_argument("--feed-hours", type=int, default=24, help="hours of landing files ahead of now (default 24)")
    parser.add_argument("--target", choices=("connect", "embedded"), default=None,
                        help="connect (default): tasks on a Spark Connect server; embedded: each task its own Spark. "
                        "A resumed deployment keeps its own")
    parser.add_argument("--dbt-tasks", choices=("coarse", "per_model"), default="coarse",
                        help="coarse (default): a task per dbt build step; per_model: a task per dbt model "
                             "(astronomer-cosmos' watcher mode; 1.5-1.8x the coarse tasks' time per interval on "
                             "2 cores, see docs/airflow_deployment.md)")
    parser.add_argument("--db", default="",
                        help="start: Airflow's metadata database, a postgresql://user:password@host:port/database URL "
                             "(make airflow AIRFLOW_DB=...; else AIRFLOW__DATABASE__SQL_ALCHEMY_CONN if set; default "
                             "SQLite in --home). A resumed deployment keeps its own")
    parser.add_argument("--rows", type=int, default=100, help="sql: rows printed at most (default 100)")
    parser.add_argument("--home", type=Path, default=LocalAirflow.home, help=f"default {LocalAirflow.home}")
    args = parser.parse_args(argv)
    home = args.home.resolve()
    recorded = Running.load(home / "deployment.json")
    target = args.target or (recorded.env.get("AIRFLOW_VAR_WINDOW_TVF_TARGET") if recorded else None) or "connect"
    config = LocalAirflow(home=home, target=target, hours=args.hours, feed_hours=args.feed_hours,
                          dbt_tasks=args.dbt_tasks)
    try:
        if args.action == "stop":
            stop(config)
        elif args.action == "status":
            status(config)
        elif args.action == "reset":
            reset(config)
        elif args.action == "sql":
            if not args.statement:
                parser.error('sql needs a statement: make airflow-sql SQL="select ..."')
            run_sql(config, args.statement, args.rows)
        else:
            alive = recorded.alive() if recorded else {}
            if alive and set(alive) >= set(SERVICES):
                print(f"Airflow is already running at {recorded.api_url} ({', '.join(alive)}); nothing started. "
                      f"make airflow-status shows it, make airflow-stop stops it.", file=sys.stderr)
                return 1
            began = time.monotonic()
            running = start(replace(config, database=_database_argument(args.db, recorded)))
            print(f"Airflow is up in {time.monotonic() - began:.0f} s.")
            for line in summary(config, running):
                print(line)
    except (AirflowDeploymentError, DeploymentError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
