"""Compare window_tvf's windows with Flink 2.3's, row for row, in time zones with and without DST.

A development tool, not a test: Flink is not a dependency of the project. Set it up once in a venv of its own
(its pins clash with the project's) and run from the repository root with the project's venv:

    python3 -m venv .flink-venv && .flink-venv/bin/pip install apache-flink==2.3.0
    .venv/bin/python scripts/flink_reference/compare.py --flink-python .flink-venv/bin/python America/New_York UTC

For each zone it writes events around that zone's 2024 offset changes (random times within 30 hours, the
millisecond before and at each change and each local midnight), runs every query of queries.py in Flink
(table.local-time-zone = the zone; SESSION in streaming mode) and through the macros (dbt compiles them in this
process; Spark runs them) in four modes: the zone as the session zone or as time_zone, the input as a CTE or a
table. It prints every mismatch and a summary; exit status 1 if any. Work files go to .spark/flink_reference/.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path
from zoneinfo import ZoneInfo

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(REPO / "tests" / "python"))
sys.path.insert(0, str(HERE))

import queries  # noqa: E402
from dbt_harness import configure_environment, run_dbt  # noqa: E402

WORK = REPO / ".spark" / "flink_reference"
SPLIT = "-- window_tvf flink_reference split --"


def offset_changes(zone: str, year: int) -> list[datetime]:
    """The instants (to the minute) at which the zone's UTC offset changes during `year`."""
    tz = ZoneInfo(zone)
    changes, hour = [], datetime(year, 1, 1, tzinfo=timezone.utc)
    while hour.year == year:
        following = hour + timedelta(hours=1)
        if following.astimezone(tz).utcoffset() != hour.astimezone(tz).utcoffset():
            minute = hour
            while minute.astimezone(tz).utcoffset() == hour.astimezone(tz).utcoffset():
                minute += timedelta(minutes=1)
            changes.append(minute)
        hour = following
    return changes


def events(zone: str, seed: int = 7) -> list[tuple[int, str, int, int]]:
    """(id, key, epoch ms, value), in time order (Flink's streaming run drops late rows)."""
    rng, tz = random.Random(seed), ZoneInfo(zone)
    around = offset_changes(zone, 2024) or [datetime(2024, 3, 10, 7, tzinfo=timezone.utc),
                                             datetime(2024, 11, 3, 6, tzinfo=timezone.utc)]
    times = []
    for change in around:
        base = int(change.timestamp() * 1000)
        times += [base + delta for delta in (-1, 0, 1, -3_600_000, 3_600_000, -1_800_000, 1_800_000)]
        times += [base + rng.randint(-30 * 3_600_000, 30 * 3_600_000) for _ in range(200 // len(around))]
        local = change.astimezone(tz)
        for days in (-1, 0, 1):
            midnight = int((datetime(local.year, local.month, local.day, tzinfo=tz) + timedelta(days=days)).timestamp() * 1000)
            times += [midnight - 1, midnight, midnight + 1]
    return [(i, f"k{rng.randint(0, 2)}", ms, rng.randint(-50, 100)) for i, ms in enumerate(sorted(times))]


def flink_rows(flink_python: str, csv: Path, zone: str, work: Path) -> dict:
    plan = {name: {"mode": q["mode"], "flink": q["flink"]} for name, q in queries.build("'ev'", None).items()}
    (work / "queries.json").write_text(json.dumps(plan))
    output = work / "flink.json"
    with open(work / "flink.log", "w") as log:
        subprocess.run([flink_python, str(HERE / "run_flink.py"), str(csv), zone, str(work / "queries.json"),
                        str(output)], check=True, stdout=log, stderr=subprocess.STDOUT)
    return json.loads(output.read_text())


def window_tvf_rows(spark, csv: Path, zone: str) -> dict[str, dict[str, list]]:
    events_sql = (f"select cast(_c0 as int) as id, _c1 as k, cast(_c2 as bigint) as ms, cast(_c3 as int) as v, "
                  f"timestamp_millis(cast(_c2 as bigint)) as ts from csv.`{csv}`")
    spark.sql("create schema if not exists window_tvf_flink_reference")
    spark.sql("drop table if exists window_tvf_flink_reference.ev")
    spark.sql(f"create table window_tvf_flink_reference.ev using parquet as {events_sql}")
    results: dict[str, dict[str, list]] = {}
    for session_zone, zone_argument in [(zone, None), ("UTC", zone)]:
        os.environ["WINDOW_TVF_SESSION_TIME_ZONE"] = session_zone
        for relation_kind, relation in [("cte", "'ev'"),
                                        ("table", "api.Relation.create(schema='window_tvf_flink_reference', identifier='ev')")]:
            mode = f"{'session_zone' if zone_argument is None else 'time_zone'}/{relation_kind}"
            planned = queries.build(relation, zone_argument)
            run = run_dbt(["compile", "--quiet", "--inline", f"\n{SPLIT}\n".join(q["spark"] for q in planned.values())])
            if not run.success:
                raise SystemExit(run.messages)
            spark.conf.set("spark.sql.session.timeZone", session_zone)
            for name, sql in zip(planned, run.result.results[0].node.compiled_code.split(SPLIT)):
                prefix = f"with ev as ({events_sql}) " if relation_kind == "cte" else ""
                rows = [list(row) for row in spark.sql(prefix + sql).collect()]
                results.setdefault(name, {})[mode] = sorted(rows, key=json.dumps)
    return results


def normalised(rows: list[list]) -> list[list]:
    """Flink prints '2024-03-10 02:00:00.000', Spark '2024-03-10 02:00:00': compare without trailing zeros."""
    def value(cell):
        if isinstance(cell, str) and len(cell) >= 19 and cell[4] == "-" and "." in cell:
            return cell.rstrip("0").rstrip(".")
        return int(cell) if isinstance(cell, float) else cell
    return sorted(([value(cell) for cell in row] for row in rows), key=json.dumps)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--flink-python", required=True, help="python of a venv with apache-flink==2.3.0")
    parser.add_argument("zones", nargs="+")
    arguments = parser.parse_args()
    configure_environment(WORK / "spark")
    run_dbt(["compile", "--quiet", "--inline", "select 1"])  # starts dbt's SparkSession
    from pyspark.sql import SparkSession

    spark = SparkSession.builder.getOrCreate()
    mismatches = 0
    for zone in arguments.zones:
        work = WORK / zone.replace("/", "_")
        work.mkdir(parents=True, exist_ok=True)
        csv = work / "events.csv"
        csv.write_text("".join(",".join(map(str, row)) + "\n" for row in events(zone)))
        expected, actual = flink_rows(arguments.flink_python, csv, zone, work), window_tvf_rows(spark, csv, zone)
        for name, flink in expected.items():
            for mode, ours in actual[name].items():
                if isinstance(flink, dict) or normalised(flink) != normalised(ours):
                    mismatches += 1
                    only_flink = [r for r in normalised(flink) if r not in normalised(ours)] if isinstance(flink, list) else flink
                    print(f"{zone} {name} [{mode}]: differs; Flink only: {str(only_flink)[:400]}")
        print(f"{zone}: {len(expected)} queries x 4 modes compared", flush=True)
    print(f"{mismatches} mismatching query/mode pairs")
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
