"""make airflow's Spark Connect server under supervisord: when the server's JVM dies (OOM, a kill), supervisord
starts the same command again, on the same port, warehouse and metastore, without a person; the Airflow tasks that
failed meanwhile succeed on their retries. Each start first repairs what a cut write left in the warehouse, before
the server accepts a connection (scripts/connect_server.py).

supervisord (PyPI `supervisor`) rather than a loop of our own: it already does what a restart loop must get right
(a backoff between failed starts, a limit on them, a stop that is not taken for a crash, its own rotated logs) and
`supervisorctl` shows the server's state. It runs in the foreground (nodaemon) in a session of its own, recorded
in the state directory's pid file like any Spark process of scripts/spark_cluster.py, so stopping it works the same.

What lands in the state directory (the deployment's spark-server/):
    supervisord.conf     written at each start
    supervisord.log      supervisord's own log: starts, exits, restarts (1 MB, 2 backups)
    connect.log          the server's stdout and stderr (what log4j does not take: launcher lines, a JVM crash,
                         each start's warehouse repair; 10 MB, 3 backups)
    spark-server.log     Spark's log at WARN (spark_conf/log4j2-server.properties: RollingFile, 10 MB, 3 backups)

    .venv/bin/supervisorctl -c .airflow/deployment/spark-server/supervisord.conf status
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
import time
from pathlib import Path

from spark_cluster import (
    _BIND_FAILED,
    REPO,
    SPARK_HOME,
    START_TIMEOUT_S,
    STOP_TIMEOUT_S,
    Deployment,
    DeploymentError,
    PortTakenError,
    _accepts_connections,
    _process_env,
    _server_conf,
    _tail,
    session_members,
    stop_sessions,
    require_free_port,
    require_java,
    stop_process_groups,
)

PROGRAM = "spark-connect"
LOG_CONFIG = REPO / "spark_conf" / "log4j2-server.properties"
SERVER_PROGRAM = REPO / "scripts" / "connect_server.py"
# A start counts as failed if the server exits within STARTSECS; supervisord then waits 1 s, 2 s, ... before the
# next try and gives up (state FATAL) after STARTRETRIES failed tries in a row (about 1 + 2 + ... + 10 = 55 s).
# A server that ran longer than STARTSECS is restarted at once whenever it exits, however often.
STARTSECS = 10
STARTRETRIES = 10
# On stop: SIGTERM to the server's process group, SIGKILL after this (below spark_cluster's STOP_TIMEOUT_S, so that
# supervisord itself has ended before the caller's SIGKILL).
STOPWAITSECS = 20


def _config(state_dir: Path, command: list[str]) -> str:
    return f"""; Written by scripts/spark_supervisor.py at each start of make airflow's Spark Connect server.
[supervisord]
nodaemon=true
silent=true
logfile={state_dir}/supervisord.log
logfile_maxbytes=1MB
logfile_backups=2
pidfile={state_dir}/supervisord.pid

[unix_http_server]
file={state_dir}/supervisor.sock
chmod=0700

[rpcinterface:supervisor]
supervisor.rpcinterface_factory = supervisor.rpcinterface:make_main_rpcinterface

[supervisorctl]
serverurl=unix://{state_dir}/supervisor.sock

[program:{PROGRAM}]
command={shlex.join(command).replace('%', '%%')}
autostart=true
autorestart=true
startsecs={STARTSECS}
startretries={STARTRETRIES}
stopsignal=TERM
stopwaitsecs={STOPWAITSECS}
stopasgroup=true
killasgroup=true
redirect_stderr=true
stdout_logfile={state_dir}/connect.log
stdout_logfile_maxbytes=10MB
stdout_logfile_backups=3
"""


class SupervisedConnect(Deployment):
    """A Spark Connect server (the `connect` target) that supervisord keeps running. `pids` holds supervisord's
    process group; the server runs in a process group of its own inside supervisord's session."""

    def __init__(self, state_dir: Path) -> None:
        super().__init__("connect", state_dir)

    def start(self, ports: dict[str, int] | None = None, host: str = "127.0.0.1", memory: str = "2g",
              extra_env: dict[str, str] | None = None) -> SupervisedConnect:
        require_java()
        port = (ports or {}).get("connect", 15002)
        require_free_port(host, port, "connect connect")
        self.state_dir.mkdir(parents=True, exist_ok=True)
        # Spark's Connect server after a repair of its warehouse, in one driver (scripts/connect_server.py); in the
        # foreground, as start-connect-server.sh --wait runs it.
        command = [
            str(SPARK_HOME / "bin" / "spark-submit"), "--name", "Spark Connect server",
            "--conf", f"spark.connect.grpc.binding.address={host}",
            "--conf", f"spark.connect.grpc.binding.port={port}",
            *_server_conf(self.state_dir, memory),
            str(SERVER_PROGRAM),
        ]
        for log in ("connect.log", "spark-server.log"):  # a failed start's lines would read as this start's
            (self.state_dir / log).unlink(missing_ok=True)
        conf = self.state_dir / "supervisord.conf"
        conf.write_text(_config(self.state_dir, command))
        env = {
            **_process_env(self.state_dir, host), **(extra_env or {}),
            # spark-submit puts SPARK_SUBMIT_OPTS on the server JVM's command line: Spark's log at WARN, rolled.
            "SPARK_SUBMIT_OPTS": f"-Dlog4j2.configurationFile=file:{LOG_CONFIG} "
                                 f"-Dwindow_tvf.server.log.dir={self.state_dir}",
            # the driver program's Python: the project's, with pyspark and the dags/ code it repairs with
            "PYSPARK_PYTHON": sys.executable, "PYSPARK_DRIVER_PYTHON": sys.executable,
        }
        out = self.state_dir / "supervisord.out"  # supervisord's own complaints before its log opens
        try:
            with out.open("ab") as stream:
                process = subprocess.Popen(
                    [str(Path(sys.executable).with_name("supervisord")), "-c", str(conf)], env=env, stdout=stream,
                    stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True,
                )
            self.pids.append(process.pid)
            (self.state_dir / "pids").write_text(f"{process.pid}\n")
            self._wait_ready(host, port, process)
        except BaseException:
            self.stop()
            raise
        self.env = {"WINDOW_TVF_TARGET": "connect", "WINDOW_TVF_SPARK_REMOTE": f"sc://{host}:{port}"}
        self.info = {"warehouse": str(self.state_dir / "warehouse"), "logs": str(self.state_dir)}
        (self.state_dir / "env").write_text("".join(f"export {k}={shlex.quote(v)}\n" for k, v in self.env.items()))
        return self

    def _wait_ready(self, host: str, port: int, process: subprocess.Popen) -> None:
        deadline = time.monotonic() + START_TIMEOUT_S
        logs = [self.state_dir / "connect.log", self.state_dir / "spark-server.log"]
        while not (server_jvm(self.state_dir) and _accepts_connections(host, port)):
            tails = "\n".join(_tail(log) for log in logs)
            if _BIND_FAILED in tails:  # another process bound the port first: the caller picks another
                raise PortTakenError(f"Spark Connect server: port {port} taken; end of its logs:\n{tails}")
            if process.poll() is not None:
                raise DeploymentError(f"supervisord exited with code {process.returncode}; end of "
                                      f"{self.state_dir / 'supervisord.out'}:\n{_tail(self.state_dir / 'supervisord.out')}")
            if time.monotonic() > deadline:
                raise DeploymentError(f"Spark Connect server not ready after {START_TIMEOUT_S:.0f} s; end of its "
                                      f"logs:\n{tails}")
            time.sleep(0.5)

    def stop(self) -> None:
        stop_supervised(self.state_dir, self.pids)




def _comm(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return ""


def supervisord_pids(state_dir: Path) -> list[int]:
    """The state directory's recorded process groups that still run supervisord or Spark (not a recycled pid)."""
    pid_file = state_dir / "pids"
    alive = []
    for pgid in [int(line) for line in pid_file.read_text().split()] if pid_file.exists() else []:
        try:
            cmdline = Path(f"/proc/{pgid}/cmdline").read_bytes()
            if (b"supervisord" in cmdline or b"spark" in cmdline) and os.getpgid(pgid) == pgid:
                alive.append(pgid)
        except OSError:
            continue
    return alive


def server_jvm(state_dir: Path) -> int | None:
    """The pid of the running server JVM under the state directory's supervisord, if any."""
    jvms = [pid for pid in session_members(set(supervisord_pids(state_dir))) if _comm(pid) == "java"]
    return jvms[0] if jvms else None


def stop_supervised(state_dir: Path, pgids: list[int] | None = None) -> list[int]:
    """Stops supervisord (SIGTERM: it stops the server without restarting it), then whatever is left in its session
    (a server whose supervisord was SIGKILLed). Returns the process groups it found running."""
    groups = sorted(set(pgids or []) | set(supervisord_pids(state_dir)))
    stop_process_groups(groups)
    stop_sessions(set(groups), STOP_TIMEOUT_S)
    (state_dir / "pids").unlink(missing_ok=True)
    return groups
