#!/usr/bin/env python3
"""Spark deployments on one host, started from the installed pyspark package, for the cluster targets in
profiles.yml: a standalone master with one worker (target `cluster`), a Spark Connect server (`connect`) and a
Spark Thrift server (`thrift`).

Every process starts in a session (process group) of its own and is stopped by that group's id, which also stops
what it spawned (a worker's executors) and nothing else on the machine. The servers keep their own Derby metastore
and warehouse under the state directory. Used by tests/python/test_spark_clusters.py and docs/spark_clusters.md:

    eval "$(.venv/bin/python scripts/spark_cluster.py start connect)"   # prints the variables dbt needs
    .venv/bin/dbt build --target connect
    .venv/bin/python scripts/spark_cluster.py stop connect
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyspark

REPO = Path(__file__).resolve().parents[1]
SPARK_HOME = Path(pyspark.__file__).parent
KINDS = ("standalone", "connect", "thrift")
# The usual ports of each kind, used by the CLI; the tests ask the OS for free ones.
DEFAULT_PORTS = {
    "standalone": {"master": 7077, "master_ui": 8080, "worker_ui": 8081},
    "connect": {"connect": 15002},
    "thrift": {"thrift": 10000},
}
START_TIMEOUT_S = 180.0
STOP_TIMEOUT_S = 30.0


class DeploymentError(RuntimeError):
    """A deployment could not start: Java missing, a port taken, a process that died or never became ready."""


class PortTakenError(DeploymentError):
    """A port the deployment needs is bound by something else: before the start, or by the time a JVM binds it."""


@dataclass
class Deployment:
    """One deployment of `kind` (see KINDS); its logs, pid file and server metastore live in `state_dir`."""

    kind: str
    state_dir: Path
    pids: list[int] = field(default_factory=list)
    # What dbt needs to reach it: WINDOW_TVF_TARGET plus the target's host variables.
    env: dict[str, str] = field(default_factory=dict)
    # Where to look: logs, web UIs, the server's warehouse.
    info: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise DeploymentError(f"unknown deployment {self.kind!r}; one of {', '.join(KINDS)}")

    def start(
        self, ports: dict[str, int] | None = None, host: str = "127.0.0.1", memory: str = "2g",
        extra_env: dict[str, str] | None = None,
    ) -> Deployment:
        """Start and wait until it serves; on failure stop what was started, then raise DeploymentError.

        `extra_env` goes to every Spark process (e.g. JAVA_TOOL_OPTIONS)."""
        require_java()
        unknown = set(ports or {}) - set(DEFAULT_PORTS[self.kind])
        if unknown:
            raise DeploymentError(f"{self.kind} has no port named {', '.join(sorted(unknown))}")
        ports = {**DEFAULT_PORTS[self.kind], **(ports or {})}
        for name, port in ports.items():
            require_free_port(host, port, f"{self.kind} {name}")
        self.state_dir.mkdir(parents=True, exist_ok=True)
        env = {**_process_env(self.state_dir, host), **(extra_env or {})}
        try:
            _STARTERS[self.kind](self, ports, host, memory, env)
        except BaseException:
            self.stop()
            raise
        (self.state_dir / "env").write_text("".join(f"export {k}={shlex.quote(v)}\n" for k, v in self.env.items()))
        return self

    def start_on_free_ports(
        self, host: str = "127.0.0.1", memory: str = "2g", extra_env: dict[str, str] | None = None,
        attempts: int = 3, say: Callable[[str], None] = print, first_ports: dict[str, int] | None = None,
    ) -> Deployment:
        """`start` on ports free at the time (or on `first_ports`, chosen earlier by a caller that already told
        someone the address); a port taken between that choice and the bind (by any other process on the machine)
        means new ports and another start, up to `attempts` starts. The ports it ran on are in `self.env`."""
        def new_ports() -> dict[str, int]:
            return {name: free_port(host) for name in DEFAULT_PORTS[self.kind]}

        ports = first_ports or new_ports()
        for _ in range(attempts - 1):
            try:
                return self.start(ports, host, memory, extra_env)
            except PortTakenError as taken:
                say(f"{self.kind}: {taken.args[0].splitlines()[0]} Starting again on other ports.")
                self.pids.clear()
                ports = new_ports()
        return self.start(ports, host, memory, extra_env)

    def stop(self) -> None:
        """Stops every process group this object started, also after a failed or interrupted start."""
        stop_process_groups(self.pids)

    def log(self, name: str) -> str:
        path = self.state_dir / f"{name}.log"
        return path.read_text(errors="replace") if path.exists() else ""


def require_java() -> str:
    java_home = os.environ.get("JAVA_HOME")
    java = str(Path(java_home, "bin", "java")) if java_home else shutil.which("java")
    if not java or not Path(java).exists():
        where = f"JAVA_HOME={java_home} has no bin/java" if java_home else "no 'java' on PATH and JAVA_HOME is unset"
        raise DeploymentError(
            f"Spark needs Java 17 or newer: {where} (Debian/Ubuntu: apt-get install openjdk-17-jre-headless)."
        )
    return java


def _ephemeral_ports_start() -> int:
    try:
        return int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768


_handed_out: set[int] = set()
_handed_out_lock = threading.Lock()


def free_port(host: str = "127.0.0.1") -> int:
    """A port free now and not handed out before by this process. Taken below the ephemeral range: a port from
    bind(0) is soon reused for the random ports Spark's JVMs bind and for outgoing connections, before the server
    gets to bind it."""
    top = _ephemeral_ports_start()
    with _handed_out_lock:
        for port in random.sample(range(max(1024, top - 10000), top), 200):
            if port not in _handed_out and _bind_error(host, port) is None:
                _handed_out.add(port)
                return port
    raise DeploymentError(f"no free port found below {top} on {host}")


def _bind_error(host: str, port: int) -> OSError | None:
    with socket.socket() as s:
        try:
            s.bind((host, port))
        except OSError as exc:
            return exc
    return None


def require_free_port(host: str, port: int, what: str) -> None:
    error = _bind_error(host, port)
    if error:
        raise PortTakenError(
            f"{what}: port {port} on {host} is already taken ({error.strerror}); another Spark may be running. "
            f"Stop it or choose another port (see `scripts/spark_cluster.py start --help`)."
        ) from error


def _accepts_connections(host: str, port: int) -> bool:
    try:
        with socket.create_connection((host, port), timeout=1):
            return True
    except OSError:
        return False


def ui_json(ui_url: str) -> dict[str, Any]:
    """A standalone master's or worker's state from its web UI: workers and apps, or executors."""
    with urllib.request.urlopen(f"{ui_url}/json/", timeout=5) as response:
        return json.load(response)


def _tail(path: Path, lines: int = 30) -> str:
    text = path.read_text(errors="replace") if path.exists() else "(no log)"
    return "\n".join(text.splitlines()[-lines:])


def _spawn(name: str, args: list[str], deployment: Deployment, env: dict[str, str]) -> subprocess.Popen:
    log = deployment.state_dir / f"{name}.log"
    with log.open("ab") as out:
        process = subprocess.Popen(
            args, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env, start_new_session=True
        )
    deployment.pids.append(process.pid)
    # Written at once, so `stop` finds the process even if the start fails half way.
    (deployment.state_dir / "pids").write_text("".join(f"{pid}\n" for pid in deployment.pids))
    return process


def _wait_until(ready: Callable[[], bool], what: str, process: subprocess.Popen, log: Path, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not ready():
        if process.poll() is not None:
            tail = _tail(log)
            error = PortTakenError if _BIND_FAILED in tail else DeploymentError
            raise error(f"{what} exited with code {process.returncode}; end of {log}:\n{tail}")
        if time.monotonic() > deadline:
            raise DeploymentError(f"{what} was not ready after {timeout:.0f} s; end of {log}:\n{_tail(log)}")
        time.sleep(0.5)


# What a JVM's log says when its server port was bound by another process first (java.net.BindException).
_BIND_FAILED = "Address already in use"


def _process_env(state_dir: Path, host: str) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        SPARK_LOCAL_IP=host,
        # Otherwise the sbin scripts and the worker write into the pyspark package (inside the virtualenv).
        SPARK_LOG_DIR=str(state_dir),
        SPARK_PID_DIR=str(state_dir),
        SPARK_WORKER_DIR=str(state_dir / "work"),
    )
    return env


def _server_conf(state_dir: Path, driver_memory: str) -> list[str]:
    """A server's own Hive metastore (Derby) and warehouse: a server is the one JVM that opens them."""
    confs = {
        "spark.master": "local[*]",
        "spark.sql.catalogImplementation": "hive",
        "spark.sql.warehouse.dir": f"{state_dir}/warehouse",
        "spark.hadoop.javax.jdo.option.ConnectionURL": f"jdbc:derby:;databaseName={state_dir}/metastore_db;create=true",
        "spark.local.dir": f"{state_dir}/tmp",
        "spark.hadoop.hive.downloaded.resources.dir": f"{state_dir}/tmp/hive-resources",
        "spark.hadoop.hive.exec.local.scratchdir": f"{state_dir}/tmp/hive-scratch",
        "spark.ui.enabled": "false",
    }
    args = ["--driver-memory", driver_memory, "--driver-java-options", f"-Dderby.system.home={state_dir}"]
    for key, value in confs.items():
        args += ["--conf", f"{key}={value}"]
    return args


def _start_standalone(deployment: Deployment, ports: dict[str, int], host: str, memory: str, env: dict) -> None:
    spark_class = str(SPARK_HOME / "bin" / "spark-class")
    master_url = f"spark://{host}:{ports['master']}"
    master = _spawn(
        "master",
        [spark_class, "org.apache.spark.deploy.master.Master", "--host", host, "--port", str(ports["master"]),
         "--webui-port", str(ports["master_ui"])],
        deployment,
        env,
    )
    _wait_until(
        lambda: _accepts_connections(host, ports["master"]) and _accepts_connections(host, ports["master_ui"]),
        "standalone master", master, deployment.state_dir / "master.log", START_TIMEOUT_S,
    )
    worker = _spawn(
        "worker",
        [spark_class, "org.apache.spark.deploy.worker.Worker", master_url, "--host", host,
         "--webui-port", str(ports["worker_ui"]), "--cores", str(os.cpu_count() or 1), "--memory", memory,
         "--work-dir", str(deployment.state_dir / "work")],
        deployment,
        env,
    )

    def worker_alive() -> bool:
        try:
            return any(w["state"] == "ALIVE" for w in ui_json(f"http://{host}:{ports['master_ui']}")["workers"])
        except (OSError, ValueError):  # not listening yet, or still serving its HTML page at /json/ while starting
            return False

    _wait_until(worker_alive, "standalone worker", worker, deployment.state_dir / "worker.log", START_TIMEOUT_S)
    deployment.env = {"WINDOW_TVF_TARGET": "cluster", "WINDOW_TVF_SPARK_MASTER": master_url}
    deployment.info = {
        "master_ui": f"http://{host}:{ports['master_ui']}",
        "worker_ui": f"http://{host}:{ports['worker_ui']}",
        "logs": str(deployment.state_dir),
    }


def _start_server(
    deployment: Deployment, what: str, command: list[str], port: int, host: str, memory: str, env: dict
) -> None:
    """`command` up to its options; the server's own metastore and warehouse come after them."""
    primary = ["spark-internal"] if deployment.kind == "thrift" else []  # spark-submit's placeholder for a server
    server = _spawn(deployment.kind, [*command, *_server_conf(deployment.state_dir, memory), *primary], deployment, env)
    _wait_until(
        lambda: _accepts_connections(host, port), what, server, deployment.state_dir / f"{deployment.kind}.log",
        START_TIMEOUT_S,
    )
    deployment.info = {"warehouse": str(deployment.state_dir / "warehouse"), "logs": str(deployment.state_dir)}


def _start_connect(deployment: Deployment, ports: dict[str, int], host: str, memory: str, env: dict) -> None:
    # --wait: stay in the foreground (SPARK_NO_DAEMONIZE), so the process group is the server's.
    command = [
        str(SPARK_HOME / "sbin" / "start-connect-server.sh"), "--wait",
        "--conf", f"spark.connect.grpc.binding.address={host}",
        "--conf", f"spark.connect.grpc.binding.port={ports['connect']}",
    ]
    _start_server(deployment, "Spark Connect server", command, ports["connect"], host, memory, env)
    deployment.env = {"WINDOW_TVF_TARGET": "connect", "WINDOW_TVF_SPARK_REMOTE": f"sc://{host}:{ports['connect']}"}


def _start_thrift(deployment: Deployment, ports: dict[str, int], host: str, memory: str, env: dict) -> None:
    command = [
        str(SPARK_HOME / "bin" / "spark-submit"), "--class", "org.apache.spark.sql.hive.thriftserver.HiveThriftServer2",
        "--name", "Thrift JDBC/ODBC Server",
        "--hiveconf", f"hive.server2.thrift.bind.host={host}",
        "--hiveconf", f"hive.server2.thrift.port={ports['thrift']}",
        # Otherwise /tmp/<user>/operation_logs, shared with every other server on the machine.
        "--hiveconf", f"hive.server2.logging.operation.log.location={deployment.state_dir / 'operation_logs'}",
    ]
    _start_server(deployment, "Spark Thrift server", command, ports["thrift"], host, memory, env)
    deployment.env = {
        "WINDOW_TVF_TARGET": "thrift",
        "WINDOW_TVF_THRIFT_HOST": host,
        "WINDOW_TVF_THRIFT_PORT": str(ports["thrift"]),
    }


_STARTERS = {"standalone": _start_standalone, "connect": _start_connect, "thrift": _start_thrift}


def _group_alive(pgid: int) -> bool:
    try:
        os.waitpid(pgid, os.WNOHANG)  # reap the leader if it is our child, or it lingers as a zombie
    except ChildProcessError:
        pass
    try:
        os.killpg(pgid, 0)
        return True
    except ProcessLookupError:
        return False


def stop_process_groups(pgids: list[int], timeout: float = STOP_TIMEOUT_S) -> None:
    """SIGTERM each process group (each started as its own session), SIGKILL what is left after `timeout`."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        for pgid in pgids:
            try:
                os.killpg(pgid, sig)
            except ProcessLookupError:
                pass
        deadline = time.monotonic() + timeout
        while any(_group_alive(p) for p in pgids) and time.monotonic() < deadline:
            time.sleep(0.2)
        if not any(_group_alive(p) for p in pgids):
            return


def _our_spark_groups(state_dir: Path) -> list[int]:
    """The process groups in the state directory's pid file that still run Spark (a recycled pid is left alone)."""
    pid_file = state_dir / "pids"
    pgids = [int(line) for line in pid_file.read_text().split()] if pid_file.exists() else []
    alive = []
    for pgid in pgids:
        try:
            cmdline = Path(f"/proc/{pgid}/cmdline").read_bytes()
        except OSError:
            continue
        if b"spark" in cmdline and os.getpgid(pgid) == pgid:
            alive.append(pgid)
    return alive


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("action", choices=("start", "stop"))
    parser.add_argument("kind", choices=KINDS)
    parser.add_argument("--state-dir", type=Path,
                        help="logs, pids, server metastore and warehouse (default .spark/clusters/<kind>)")
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    parser.add_argument("--memory", default="2g", help="worker memory or server driver memory (default 2g)")
    defaults = "; ".join(f"{kind}: " + ", ".join(f"{n}={p}" for n, p in ports.items())
                         for kind, ports in DEFAULT_PORTS.items())
    parser.add_argument("--port", action="append", default=[], metavar="NAME=PORT",
                        help=f"a port other than the default ({defaults})")
    args = parser.parse_args(argv)
    state_dir = (args.state_dir or REPO / ".spark" / "clusters" / args.kind).resolve()
    if args.action == "stop":
        stop_process_groups(_our_spark_groups(state_dir))
        (state_dir / "pids").unlink(missing_ok=True)
        print(f"stopped {args.kind} ({state_dir})", file=sys.stderr)
        return 0
    if _our_spark_groups(state_dir):
        print(f"{args.kind} already runs from {state_dir}; stop it first", file=sys.stderr)
        return 1
    ports = {name: int(port) for name, port in (item.split("=", 1) for item in args.port)}
    began = time.monotonic()
    try:
        deployment = Deployment(args.kind, state_dir).start(ports, args.host, args.memory)
    except DeploymentError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(f"{args.kind} ready in {time.monotonic() - began:.0f} s; {deployment.info}", file=sys.stderr)
    print((state_dir / "env").read_text(), end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())


def session_members(sessions: set[int]) -> list[int]:
    """The live processes of these sessions (a session holds every process group its leader started: an Airflow
    service's task processes, supervisord's server), so stopping by session stops them too, and nothing else."""
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
        for pid in session_members(sessions):
            try:
                os.kill(pid, sig)
            except ProcessLookupError:
                pass
        deadline = time.monotonic() + timeout
        while session_members(sessions) and time.monotonic() < deadline:
            time.sleep(0.2)
        if not session_members(sessions):
            return
