"""CPU by service while a command runs (docs/airflow_deployment.md, "Where the limit is: CPU per interval").

Samples every process's CPU (utime + stime, from /proc/<pid>/stat) once a second while COMMAND runs, then prints,
for each time window asked, the CPU each service used in it: the Spark server (a JVM), Airflow's api-server,
scheduler, DAG processor (with the processes it forks to parse DAG files) and triggerer, the task processes (with
the executor's workers), and the rest. A window is two UTC times of the day (HH:MM:SS), e.g. an interval's start
and end as Airflow records them; the samples are kept in --out for more windows later (--report).

    python bench/cpu_by_service.py --out cpu.json -- python bench/airflow_dbt_tasks.py --intervals 3
    python bench/cpu_by_service.py --report cpu.json --window 21:55:39 21:56:46 --window 22:02:42 22:04:15
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

from harness import cpu_seconds, process_stat  # bench/, this file's directory

SERVICES = ("dag-processor", "triggerer", "scheduler", "api-server")


def service(cmdline: str) -> str:
    """The service a process belongs to, from its command line."""
    if "java" in cmdline:
        return "spark server"
    if "airflow" in cmdline:
        return next((name for name in SERVICES if name in cmdline), "tasks")
    return "other"


def sample(processes: dict[str, dict], samples: list[tuple[float, str, float]]) -> None:
    """One reading of every process: (epoch seconds, pid@start time, CPU seconds so far), and its command line as
    last read (a launcher script execs the Spark server's java under the same pid)."""
    now = time.time()
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            fields = process_stat(pid)
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:  # ended meanwhile
            continue
        process = f"{pid}@{fields[19]}"  # with its start time: pids are reused (pid_max 32768 here)
        processes[process] = {"cmd": cmdline[:300] or processes.get(process, {}).get("cmd", "")}
        samples.append((round(now, 2), process, cpu_seconds(pid, fields)))


def record(command: list[str], out: Path) -> int:
    processes: dict[str, dict] = {}
    samples: list[tuple[float, str, float]] = []
    child = subprocess.Popen(command)
    while child.poll() is None:
        sample(processes, samples)
        time.sleep(1.0)
    out.write_text(json.dumps({"processes": processes, "samples": samples}))
    print(f"{len(samples)} samples of {len(processes)} processes in {out}", file=sys.stderr)
    return child.returncode


def per_service(recorded: dict, start: float, end: float) -> dict[str, float]:
    """CPU seconds each service used between start and end: a process's last reading in the window less its last
    before it; for a process first read inside the window, less 0 if it started then, or less that first reading if
    it was already running when the recording began."""
    began = recorded["samples"][0][0]
    before: dict[str, float] = {}
    first: dict[str, tuple[float, float]] = {}
    last: dict[str, float] = {}
    for moment, pid, cpu in recorded["samples"]:
        if moment < start:
            before[pid] = cpu
        elif moment <= end:
            first.setdefault(pid, (moment, cpu))
            last[pid] = cpu
    used: dict[str, float] = collections.Counter()
    for pid, cpu in last.items():
        seen, at_first = first[pid]
        base = before.get(pid, at_first if seen < began + 1.5 else 0.0)
        used[service(recorded["processes"][pid]["cmd"])] += cpu - base
    return dict(used)


def report(path: Path, windows: list[tuple[str, str]]) -> None:
    recorded = json.loads(path.read_text())
    day = datetime.fromtimestamp(recorded["samples"][0][0], timezone.utc).date()
    names = ["spark server", "tasks", *SERVICES, "other"]
    print(f"{'window (UTC)':19} {'s':>5} {'CPU s':>7} {'cores':>5}  " + "  ".join(f"{n:>13}" for n in names))
    for first, last in windows:
        start, end = (datetime.combine(day, datetime.strptime(t, "%H:%M:%S").time(), timezone.utc).timestamp()
                      for t in (first, last))
        used = per_service(recorded, start, end)
        total = sum(used.values())
        print(f"{first}-{last} {end - start:5.0f} {total:7.1f} {total / (end - start):5.2f}  "
              + "  ".join(f"{used.get(n, 0.0):13.1f}" for n in names))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, help="where to keep the samples of COMMAND's run")
    parser.add_argument("--report", type=Path, help="samples kept by an earlier run")
    parser.add_argument("--window", nargs=2, action="append", default=[], metavar=("START", "END"))
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if bool(command) == bool(args.report) or (command and not args.out):
        parser.error("either --out FILE -- COMMAND, or --report FILE")
    code = record(command, args.out) if command else 0
    if args.window:
        report(args.report or args.out, args.window)
    return code


if __name__ == "__main__":
    sys.exit(main())
