#!/usr/bin/env python3
"""A throwaway PostgreSQL server for Airflow's metadata database, from Debian's `postgresql` package: `initdb` and
`pg_ctl` in a directory of its own, on 127.0.0.1 and a free port, no Unix socket, password authentication. The
tests start one (tests/python/test_airflow_postgres.py); by hand it gives a URL to try `make airflow` with:

    .venv/bin/python scripts/postgres_local.py start .airflow/postgres      # prints the postgresql:// URL
    make airflow AIRFLOW_DB=postgresql://airflow:airflow@127.0.0.1:PORT/airflow
    .venv/bin/python scripts/postgres_local.py stop .airflow/postgres

PostgreSQL refuses to run as root ("initdb: cannot be run as root"): as root, its programs run as the `postgres`
user that Debian's package creates, and the data directory belongs to that user. scripts/install_postgres.sh
installs the package where it is missing (make test-airflow calls it).
"""

from __future__ import annotations

import argparse
import os
import pwd
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from spark_cluster import free_port  # noqa: E402

START_TIMEOUT_S = 120.0


class PostgresError(RuntimeError):
    """The server could not be made or started; the message holds the end of its log."""


def bin_dir() -> Path:
    """The newest PostgreSQL's programs of Debian's layout (/usr/lib/postgresql/<major>/bin)."""
    found = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"), key=lambda p: int(p.parts[-3]))
    if not found:
        raise PostgresError("PostgreSQL is not installed (no /usr/lib/postgresql/*/bin/initdb): "
                            "scripts/install_postgres.sh installs it (apt-get install -y postgresql)")
    return found[-1].parent


@dataclass
class PostgresServer:
    """One server: its cluster in `directory`/data, its log in `directory`/postgres.log."""

    directory: Path
    user: str = "airflow"
    password: str = "airflow"
    database: str = "airflow"
    port: int = 0
    host: str = "127.0.0.1"

    @property
    def data(self) -> Path:
        return self.directory / "data"

    @property
    def log(self) -> Path:
        return self.directory / "postgres.log"

    @property
    def url(self) -> str:
        return f"postgresql://{self.user}:{self.password}@{self.host}:{self.port}/{self.database}"

    def _run(self, *args: str, timeout: float = START_TIMEOUT_S) -> subprocess.CompletedProcess:
        """A PostgreSQL program, as the `postgres` user when this process is root."""
        command = [str(bin_dir() / args[0]), *args[1:]]
        if os.geteuid() == 0:
            command = ["runuser", "-u", "postgres", "--", *command]
        return subprocess.run(command, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL)

    def start(self) -> PostgresServer:
        """initdb (once), then start on a free port; waits until it accepts the login, creates the database."""
        self.directory.mkdir(parents=True, exist_ok=True)
        if os.geteuid() == 0:
            owner = pwd.getpwnam("postgres")  # Debian's package creates this user
            os.chown(self.directory, owner.pw_uid, owner.pw_gid)
        if not (self.data / "PG_VERSION").exists():
            password_file = self.directory / "password"
            password_file.write_text(self.password + "\n")
            if os.geteuid() == 0:
                os.chown(password_file, pwd.getpwnam("postgres").pw_uid, -1)
            try:
                done = self._run("initdb", "-D", str(self.data), "-U", self.user, f"--pwfile={password_file}",
                                 "--auth-host=scram-sha-256", "--auth-local=reject", "--encoding=UTF8",
                                 "--locale=C.UTF-8")
            finally:
                password_file.unlink(missing_ok=True)
            if done.returncode != 0:
                raise PostgresError(f"initdb failed:\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
        # A restarted server keeps its port, so the URL a deployment recorded still reaches it.
        port_file = self.directory / "port"
        self.port = self.port or (int(port_file.read_text()) if port_file.exists() else free_port(self.host))
        port_file.write_text(f"{self.port}\n")
        if self.running():
            self._create_database()
            return self
        options = f"-c listen_addresses={self.host} -c port={self.port} -c unix_socket_directories=''"
        done = self._run("pg_ctl", "start", "-D", str(self.data), "-l", str(self.log), "-o", options, "-w",
                         "-t", str(int(START_TIMEOUT_S)))
        if done.returncode != 0:
            raise PostgresError(f"pg_ctl start failed:\n{done.stdout[-2000:]}{done.stderr[-2000:]}\n"
                                f"end of {self.log}:\n{self._log_tail()}")
        self._create_database()
        return self

    def _log_tail(self) -> str:
        try:
            return "\n".join(self.log.read_text(errors="replace").splitlines()[-20:])
        except OSError:
            return "(no log)"

    def _create_database(self) -> None:
        import psycopg2

        deadline = time.monotonic() + START_TIMEOUT_S
        while True:
            try:
                connection = psycopg2.connect(host=self.host, port=self.port, user=self.user,
                                              password=self.password, dbname="postgres", connect_timeout=10)
                break
            except psycopg2.OperationalError as error:
                if time.monotonic() > deadline:
                    raise PostgresError(f"the server does not accept the login: {error}\n{self._log_tail()}") from error
                time.sleep(0.5)
        connection.autocommit = True  # create database refuses a transaction (psycopg2's `with connection` opens one)
        try:
            with connection.cursor() as cursor:
                cursor.execute("select 1 from pg_database where datname = %s", (self.database,))
                if cursor.fetchone() is None:
                    cursor.execute(f'create database "{self.database}"')
        finally:
            connection.close()

    def running(self) -> bool:
        return self.data.exists() and self._run("pg_ctl", "status", "-D", str(self.data)).returncode == 0

    def stop(self) -> None:
        """Stops the server (fast shutdown: open sessions are ended); the data directory stays."""
        if (self.data / "postmaster.pid").exists():
            self._run("pg_ctl", "stop", "-D", str(self.data), "-m", "fast", "-w")

    def delete(self) -> None:
        self.stop()
        shutil.rmtree(self.directory, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("action", choices=("start", "stop", "delete"))
    parser.add_argument("directory", type=Path)
    parser.add_argument("--port", type=int, default=0, help="default: a free port")
    args = parser.parse_args(argv)
    server = PostgresServer(args.directory.resolve(), port=args.port)
    try:
        if args.action == "start":
            print(server.start().url)
        elif args.action == "stop":
            server.stop()
        else:
            server.delete()
    except PostgresError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
