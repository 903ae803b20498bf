"""The hourly pipeline's writing tasks in a process of their own (its own JVM and Derby metastore, from the
environment the crash test sets), as an Airflow worker runs a task:

    python pipeline_child.py run FIRST LAST [MARKER]   intervals FIRST..LAST; MARKER is created when LAST starts
    python pipeline_child.py dump FILE                 every pipeline table's rows, as JSON
    python pipeline_child.py unfinished_commit TABLE PARTITION
        leaves TABLE as a kill between "delete the old partition" and "rename the staged one" would: the partition's
        directory moved into a committed staging directory
    python pipeline_child.py staging FILE              the warehouse's staging directories, as JSON
    python pipeline_child.py recover                   what every writing task does first: repair what a kill left

Several commands run in one process (one JVM start) when joined by `then`, e.g. `run 2 2 then dump FILE`.
"""

from __future__ import annotations

import json
import sys
from datetime import timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "dags"))

from window_tvf_pipeline import tasks  # noqa: E402
from window_tvf_pipeline.config import PIPELINE_TABLES, Settings  # noqa: E402
from window_tvf_pipeline.spark import spark_session, stop_spark  # noqa: E402


def run(first: int, last: int, marker: str | None) -> None:
    settings = Settings.from_environment()
    for n in range(first, last + 1):
        start = settings.start + timedelta(hours=n)
        if marker and n == last:
            Path(marker).touch()
        tasks.build_event_windows(start, start + timedelta(hours=1), settings)
        tasks.load_price_snapshots(start, start + timedelta(hours=1), settings)
        tasks.build_priced_orders(start, start + timedelta(hours=1), settings)


def dump(path: str) -> None:
    settings = Settings.from_environment()
    spark = spark_session(settings)
    tables = {t: sorted(json.dumps(list(row), default=str) for row in spark.table(f"{settings.schema}.{t}").collect())
              for t in PIPELINE_TABLES}
    Path(path).write_text(json.dumps(tables))


def unfinished_commit(table: str, partition: str) -> None:
    settings = Settings.from_environment()
    spark = spark_session(settings)
    location = spark.sql(f"describe schema extended {settings.schema}").where("info_name = 'Location'").first().info_value
    root = Path(location.removeprefix("file:")) / table
    staged = root / ".spark-staging-unfinished" / partition
    staged.parent.mkdir(parents=True)
    (root / partition).rename(staged)


def staging(path: str) -> None:
    settings = Settings.from_environment()
    spark = spark_session(settings)
    location = spark.sql(f"describe schema extended {settings.schema}").where("info_name = 'Location'").first().info_value
    root = Path(location.removeprefix("file:"))
    Path(path).write_text(json.dumps(sorted(str(p.relative_to(root)) for p in root.glob("*/.spark-staging-*"))))


def dump_in_a_process(env: dict[str, str], path: Path, timeout: float = 900) -> dict[str, list[str]]:
    """Every pipeline table's rows, as `dump` writes them, from a process of its own with the given environment (a
    deployment's: its target, Spark server and schema); raises with the end of its stderr if it fails."""
    import subprocess

    path.parent.mkdir(parents=True, exist_ok=True)
    done = subprocess.run([sys.executable, __file__, "dump", str(path)], env=env, capture_output=True, text=True,
                          timeout=timeout)
    if done.returncode != 0:
        raise RuntimeError(f"pipeline_child.py dump failed:\n{done.stderr[-3000:]}")
    return json.loads(path.read_text())


def main(argv: list[str]) -> None:
    steps: list[list[str]] = [[]]
    for word in argv:  # split on the word `then` (paths may hold spaces)
        if word == "then":
            steps.append([])
        else:
            steps[-1].append(word)
    for command, *arguments in steps:
        if command == "run":
            run(int(arguments[0]), int(arguments[1]), arguments[2] if len(arguments) > 2 else None)
        elif command == "dump":
            dump(arguments[0])
        elif command == "unfinished_commit":
            unfinished_commit(*arguments)
        elif command == "staging":
            staging(arguments[0])
        elif command == "recover":
            tasks.recover_interrupted_writes(Settings.from_environment())
        else:
            raise SystemExit(f"pipeline_child.py: unknown command {command!r} (run, dump, unfinished_commit, staging, recover)")


if __name__ == "__main__":
    try:
        main(sys.argv[1:])
    finally:
        stop_spark()
