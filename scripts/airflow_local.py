#!/usr/bin/env python3
"""A real Airflow 3 deployment of the project's DAGs on this machine, in one command (`make airflow`):

    python scripts/airflow_local.py start [--hours 3] [--feed-hours 24] [--target connect]
    python scripts/airflow_local.py stop
    python scripts/airflow_local.py status

`start` makes a fresh deployment under .airflow/deployment/ (git-ignored): a long-lived Spark Connect server
(scripts/spark_cluster.py) that every task uses, so no task starts a JVM; sample landing files for the last
`--hours` hours before now and the next `--feed-hours` (a simulated feed: each hour's files are read only by the
run after that hour ends); the metadata database (SQLite) and the pool the DAGs use; then Airflow's api-server
(on 127.0.0.1, a free port), scheduler, dag-processor and triggerer (LocalExecutor), each a background process
with its log in a file. The hourly DAG starts `--hours` before now: it catches up those hours one run at a time,
then keeps to its schedule. It unpauses both DAGs (the reference-examples DAG is daily without catch-up: it runs
once at once, for the last day, then daily), waits until the UI answers and prints its address, the login and
where the logs are. `stop` stops exactly what `start` started
(the process groups recorded in deployment.json), the Spark server included; the files stay until the next start.

Every process listens on 127.0.0.1 only: the scheduler and triggerer run with --skip-serve-logs (task logs are
local files the api-server reads), the Spark server binds 127.0.0.1.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import shlex
import shutil
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "dags"))
sys.path.insert(0, str(REPO / "scripts"))

from spark_cluster import DeploymentError, free_port  # noqa: E402
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
            "AIRFLOW__CORE__LOAD_EXAMPLES": "False",
            "AIRFLOW__CORE__EXECUTOR": "LocalExecutor",
            # SQLite admits one writer: a CLI command (a backfill creating its runs) waits up to 60 s for the
            # scheduler's transactions instead of failing with "database is locked" after 5 s.
            "AIRFLOW__DATABASE__SQL_ALCHEMY_CONN": f"sqlite:///{self.home / 'airflow.db'}?timeout=60",
            # Parsing a DAG file takes a few seconds; Airflow's 30 s limit is too tight on a busy 2-core machine.
            "AIRFLOW__CORE__DAGBAG_IMPORT_TIMEOUT": "300",
            "AIRFLOW__DAG_PROCESSOR__DAG_FILE_PROCESSOR_TIMEOUT": "300",
            "AIRFLOW__API__BASE_URL": base_url,
            "AIRFLOW__CORE__EXECUTION_API_SERVER_URL": f"{base_url}/execution/",
            # The scheduler signs the tasks' tokens, the api-server checks them: one secret for both.
            "AIRFLOW__API_AUTH__JWT_SECRET": secret,
            "AIRFLOW__CORE__SIMPLE_AUTH_MANAGER_USERS": f"{USER}:admin",
            "AIRFLOW__CORE__SIMPLE_AUTH_MANAGER_PASSWORDS_FILE": str(self.passwords_file),
            "AIRFLOW__COSMOS__ENABLE_TELEMETRY": "False",
            # The pipeline: the DAG's first interval, its landing files, GX's site, the target.
            "WINDOW_TVF_PIPELINE_START": start.strftime("%Y-%m-%dT%H:%M:%SZ"),
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


def _wait(ready: Any, what: str, running: Running, log: Path, timeout: float = READY_TIMEOUT_S) -> Any:
    """Polls `ready()` until it returns a truthy value; fails early when a service died."""
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
        time.sleep(1)


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
    """The deployment's settings for the Airflow CLI (`set -a; . env; set +a`); it holds the JWT secret."""
    path.write_text("".join(f"{k}={shlex.quote(v)}\n" for k, v in env.items()
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


def start(config: LocalAirflow, say: Any = print) -> Running:
    """Starts a fresh deployment and returns it once the UI answers and the DAGs are unpaused."""
    from window_tvf_pipeline.config import Settings
    from window_tvf_pipeline.generate import write_landing

    shutil.rmtree(config.home, ignore_errors=True)
    config.service_logs.mkdir(parents=True)
    first = config.first_interval()
    lines = write_landing(config.landing_dir, first, config.hours + config.feed_hours)
    say(f"Sample landing data: {lines} event lines, arrival hours {first:%Y-%m-%d %H:00} to "
        f"{first + timedelta(hours=config.hours + config.feed_hours - 1):%Y-%m-%d %H:00} UTC, in {config.landing_dir}")

    running = Running(config.home, api_url="", first_interval=first.isoformat())
    spark = SupervisedConnect(config.spark_dir)  # restarted by supervisord when it dies (scripts/spark_supervisor.py)
    parse = None
    try:
        # dbt parses the project once here, beside the Spark start; every task then parses only what changed.
        port, spark_port = free_port(config.host), free_port(config.host)
        spark_env = (
            {"WINDOW_TVF_TARGET": "connect", "WINDOW_TVF_SPARK_REMOTE": f"sc://{config.host}:{spark_port}"}
            if config.target == "connect" else {}
        )
        running.api_url = f"http://{config.host}:{port}"
        running.env = config.environment(port, first, spark_env, secrets.token_urlsafe(32))
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


def set_paused(running: Running, dag_id: str, paused: bool, token: str) -> None:
    api(running.api_url, f"/api/v2/dags/{dag_id}", token, json.dumps({"is_paused": paused}).encode(), "PATCH")


def dag_runs(running: Running, dag_id: str, token: str) -> list[dict]:
    """The DAG's runs, oldest logical date first, each with its task instances (`tasks`: task_id -> instance)."""
    runs = api(running.api_url, f"/api/v2/dags/{dag_id}/dagRuns?order_by=logical_date&limit=1000", token)["dag_runs"]
    for run in runs:
        instances = api(running.api_url, f"/api/v2/dags/{dag_id}/dagRuns/{run['dag_run_id']}/taskInstances",
                        token)["task_instances"]
        run["tasks"] = {ti["task_id"]: ti for ti in instances}
    return runs


def wait_for_runs(running: Running, dag_id: str, count: int, timeout: float) -> list[dict]:
    """Waits until the DAG has `count` finished runs and none running; returns every run."""
    def finished() -> list[dict] | None:
        runs = dag_runs(running, dag_id, running.token())
        done = [r for r in runs if r["state"] in ("success", "failed")]
        return runs if len(done) >= count and len(done) == len(runs) else None

    return _wait(finished, f"{count} finished runs of {dag_id}", running,
                 running.home / "services" / "scheduler.log", timeout)


def _session_members(sessions: set[int]) -> list[int]:
    """The live processes of these sessions. Each service starts a session of its own; its task processes stay in
    that session but take process groups of their own, so stopping by session stops them too, and nothing else."""
    members = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        state, _ppid, _group, session = stat[stat.rindex(")") + 2 :].split()[:4]
        if int(session) in sessions and state != "Z":
            members.append(int(entry.name))
    return members


def stop_sessions(sessions: set[int], timeout: float = 30.0) -> None:
    """SIGTERM every process of the sessions, SIGKILL what is left after `timeout`."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        for pid in _session_members(sessions):
            try:
                os.kill(pid, sig)
            except ProcessLookupError:
                pass
        deadline = time.monotonic() + timeout
        while _session_members(sessions) and time.monotonic() < deadline:
            time.sleep(0.2)
        if not _session_members(sessions):
            return


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
    say(f"Stopped {len(groups)} Airflow processes and {len(spark_groups)} Spark server(s); "
        f"logs and data stay in {config.home}.")
    return bool(groups or spark_groups)


def summary(config: LocalAirflow, running: Running) -> list[str]:
    first = datetime.fromisoformat(running.first_interval)
    remote = running.env.get("WINDOW_TVF_SPARK_REMOTE")
    spark = f"the Spark Connect server {remote}" if remote else "the embedded Spark, one task at a time"
    reference = (f"; {REFERENCE_DAG} runs once now (the last day), then daily" if config.run_reference
                 else f"; {REFERENCE_DAG} stays paused")
    return [
        f"Airflow UI: {running.api_url}  (login: {USER} / {running.password}; the password is in "
        f"{config.passwords_file})",
        f"DAGs: {HOURLY_DAG} catches up {config.hours} hourly intervals from {first:%Y-%m-%d %H:%M} UTC, one run at "
        f"a time, then runs every hour{reference}.",
        f"Tasks run on {spark} (target {config.target}).",
        f"Logs: services in {config.service_logs}/, task logs in {config.home / 'logs'}/"
        + (f", Spark server in {running.spark_dir}/connect.log" if running.spark_dir else ""),
        f"Airflow CLI against it: set -a; . {config.home / 'env'}; set +a; airflow dags list",
        "Stop: make airflow-stop",
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("action", choices=("start", "stop", "status"))
    parser.add_argument("--hours", type=int, default=3, help="hourly intervals before now to catch up (default 3)")
    parser.add_argument("--feed-hours", type=int, default=24, help="hours of landing files ahead of now (default 24)")
    parser.add_argument("--target", choices=("connect", "embedded"), default="connect",
                        help="connect (default): tasks on a Spark Connect server; embedded: each task its own Spark")
    args = parser.parse_args(argv)
    config = LocalAirflow(target=args.target, hours=args.hours, feed_hours=args.feed_hours)
    if args.action == "stop":
        stop(config)
        return 0
    running = Running.load(config.state_file)
    alive = running.alive() if running else {}
    if args.action == "status" or alive:
        if alive:
            print(f"Airflow is running at {running.api_url} ({', '.join(alive)}); stop it with make airflow-stop.")
        else:
            print("Airflow is not running; start it with make airflow.")
        return 0
    began = time.monotonic()
    try:
        running = start(config)
    except (AirflowDeploymentError, DeploymentError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    print(f"Airflow is up in {time.monotonic() - began:.0f} s.")
    for line in summary(config, running):
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
