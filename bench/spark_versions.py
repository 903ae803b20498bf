"""The SQL forms that keep one text for every supported Spark, timed on the Spark of the venv that runs this.

Each query (window TVFs, a rows-path aggregation, Top-N, sampling) is compiled by dbt from this checkout's macros
and, with --baseline REV, from the project at git revision REV too (the forms before a change); both run in turn
in one SparkSession on the three key distributions, into Spark's no-op sink. Prints seconds, the ratio to the
baseline, and whether Spark's optimized plans are the same (expression ids aside); writes its table to
docs/benchmarks/spark_versions.md, one section per Spark version.

    .venv/bin/python bench/spark_versions.py --baseline 17406f2     # Spark 4.3, against the `* except` forms
    .venv-spark35/bin/python bench/spark_versions.py                 # Spark 3.5 (its baseline cannot parse there)

With --zone-rules it times nothing: it prints a digest of the UTC offset tables (1970-2100) that the macros read
from this Spark's time-zone rules for every IANA zone, so that two Spark versions can be compared.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import re
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import (BENCHMARKS, REPO, BenchSpark, cell, event_table, load_average, ratio, relation,  # noqa: E402
                     run_stamp, timed_together, write_section)
from window_aggregation import DAYS, SHAPES, START  # noqa: E402

BENCH_DIR = REPO / ".spark" / "bench"
TIMEOUT_S = 600
DOC = BENCHMARKS / "spark_versions.md"


@dataclass(frozen=True)
class Query:
    name: str
    call: str  # Jinja over {relation}, the events table as ref() would give it
    session_zone: str = "UTC"


TUMBLE = "{'tvf': 'tumble', 'timecol': 'ts', 'size': '10 minutes'}"
HOP = "{'tvf': 'hop', 'timecol': 'ts', 'slide': '5 minutes', 'size': '1 hour'}"
QUERIES = [
    Query("tumble 10 min", f"{{{{ window_tvf.apply_window({{relation}}, {TUMBLE}) }}}}"),
    Query("hop 1 h / 5 min", f"{{{{ window_tvf.apply_window({{relation}}, {HOP}) }}}}"),
    Query("cumulate 1 day / 1 h", "{{ window_tvf.apply_window({relation}, "
          "{'tvf': 'cumulate', 'timecol': 'ts', 'step': '1 hour', 'size': '1 day'}) }}"),
    Query("tumble 1 day, New York session", "{{ window_tvf.apply_window({relation}, "
          "{'tvf': 'tumble', 'timecol': 'ts', 'size': '1 day'}) }}", "America/New_York"),
    Query("tumble 10 min of a CTE", f"with events as (select * from {{table}}) "
          f"{{{{ window_tvf.apply_window('events', {TUMBLE}) }}}}"),
    Query("window_aggregate rows, hop", f"{{{{ window_tvf.window_aggregate({{relation}}, {HOP}, 'event_key', "
          "{'events': 'count(*)', 'total': 'sum(amount)'}, strategy='rows') }}"),
    Query("window_topn 3 per key", f"{{{{ window_tvf.window_topn({{relation}}, {TUMBLE}, 3, ['amount desc'], "
          "partition_by='event_key') }}"),
    Query("sample 30 %", "{{ window_tvf.sample({relation}, 0.3, seed=7) }}"),
]


def compile_inline(sql: str, project_dir: Path, zone: str) -> str | None:
    """dbt's compiled SQL for `sql` against the project in `project_dir`; None when that project cannot compile it."""
    from dbt.cli.main import dbtRunner

    os.environ["WINDOW_TVF_SESSION_TIME_ZONE"] = zone
    outcome = dbtRunner().invoke(["compile", "--inline", sql, "--quiet", "--log-level", "none",
                                  "--log-path", str(BENCH_DIR / "dbt_logs"), "--project-dir", str(project_dir),
                                  "--profiles-dir", str(REPO)])
    return outcome.result.results[0].node.compiled_code if outcome.success else None


def baseline_project(revision: str) -> Path:
    """The project's files at `revision`, unpacked under .spark/bench (dbt compiles the old macros from there)."""
    target = BENCH_DIR / f"baseline-{revision}"
    if not (target / "dbt_project.yml").exists():
        target.mkdir(parents=True, exist_ok=True)
        archive = subprocess.run(["git", "-C", str(REPO), "archive", revision], check=True, capture_output=True)
        subprocess.run(["tar", "-x", "-C", str(target)], input=archive.stdout, check=True)
    return target


def plan(spark, sql: str) -> str | None:
    """Spark's optimized logical plan without expression ids and without the name a LATERAL VIEW gives its generator
    (`Generate explode(...), ..., false, hopped, [window_tvf__start]`), which changes nothing in what it computes;
    None when Spark cannot analyze the query."""
    try:
        text = spark.sql(sql)._jdf.queryExecution().optimizedPlan().toString()
    except Exception:  # a baseline form this Spark cannot parse
        return None
    return re.sub(r"(, (?:true|false)), \w+, \[", r"\1, [", re.sub(r"#\d+L?", "", text))


def zone_rules_digest(spark) -> str:
    """Digest of every zone's offset table as window_tvf._zone_rules reads it from this Spark (one query a zone)."""
    import pytz

    # the IANA zones that this JVM's java.time knows (pytz also lists a few it does not, which Spark rejects)
    known = set(spark.sparkContext._jvm.java.time.ZoneId.getAvailableZoneIds())
    zones = [zone for zone in pytz.all_timezones if zone in known and zone != "UTC"]
    call = "{% for zone in " + json.dumps(zones) + " %}{{ tojson([zone, window_tvf._zone_rules(zone)]) }}\n{% endfor %}"
    compiled = compile_inline(call, REPO, "UTC")
    if compiled is None:
        raise SystemExit("dbt could not read the zone rules; see .spark/bench/dbt_logs")
    tables = [json.loads(line) for line in compiled.splitlines() if line.strip()]
    transitions = sum(len(rules["transitions"]) for _, rules in tables)
    digest = hashlib.sha256(json.dumps(tables, sort_keys=True).encode()).hexdigest()[:16]
    return (f"Spark {spark.version} on Java {spark.sparkContext._jvm.java.lang.System.getProperty('java.version')}: "
            f"{len(tables)} zones, {transitions:,} offset changes from 1970 to 2100, digest {digest}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=2_000_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--baseline", help="a git revision whose macros are timed against this checkout's")
    parser.add_argument("--zone-rules", action="store_true", help="print the zone rules' digest instead of timing")
    arguments = parser.parse_args()

    began = time.monotonic()
    bench_spark = BenchSpark(BENCH_DIR / f"spark-versions-{_pyspark_version()}",
                             log_file=BENCH_DIR / f"spark-versions-{_pyspark_version()}.log")
    bench_spark.configure_environment()
    spark = bench_spark.session()
    print(f"Spark {spark.version}; Spark's log: {bench_spark.log_file}", flush=True)
    if arguments.zone_rules:
        print(zone_rules_digest(spark), f"[{(time.monotonic() - began) / 60:.1f} min]", flush=True)
        return 0
    old_project = baseline_project(arguments.baseline) if arguments.baseline else None
    lines = ["| data | query | this checkout s | baseline s | x baseline | same optimized plan |",
             "|---|---|---|---|---|---|"]
    for shape in SHAPES:
        table = event_table(spark, BENCH_DIR / "data", f"versions_{shape.name}_{arguments.rows}", arguments.rows,
                            shape.key_sql, START, DAYS)
        for query in QUERIES:
            call = query.call.replace("{relation}", relation(table)).replace("{table}", table)
            new = compile_inline(call, REPO, query.session_zone)
            old = compile_inline(call, old_project, query.session_zone) if old_project else None
            if new is None:
                raise SystemExit(f"this checkout's macros do not compile {query.name}: {call}")
            spark.conf.set("spark.sql.session.timeZone", query.session_zone)
            old_plan = plan(spark, old) if old else None
            same = "-" if old_plan is None else ("yes" if old_plan == plan(spark, new) else "**no**")
            seconds = timed_together(spark, {"new": new, "old": old if old_plan else None}, arguments.repeats,
                                     TIMEOUT_S)
            lines.append(f"| {shape.label} | {query.name} | {cell(seconds['new'], TIMEOUT_S)} | "
                         f"{cell(seconds['old'], TIMEOUT_S) if seconds['old'] else 'n/a'} | "
                         f"{ratio(seconds['new'], seconds['old'])} | {same} |")
            print(lines[-1], f"[{(time.monotonic() - began) / 60:.1f} min]", flush=True)
    spark.conf.set("spark.sql.session.timeZone", "UTC")
    minutes = (time.monotonic() - began) / 60
    body = (f"Measured {run_stamp()} ({load_average()} at the end). Spark {spark.version} (pyspark "
            f"{_pyspark_version()}), {platform.node()}: {os.cpu_count()} cores, "
            f"local[2]; {arguments.rows:,} events per data set, median of {arguments.repeats} runs per cell; "
            f"baseline: {arguments.baseline or 'none'}; {minutes:.0f} minutes.\n\n" + "\n".join(lines))
    write_section(DOC, f"Timings on Spark {spark.version}", f"<!-- spark_versions {spark.version} begin -->",
                  f"<!-- spark_versions {spark.version} end -->", body)
    print(f"\n{body}\n\nWritten to {DOC}", flush=True)
    return 0


def _pyspark_version() -> str:
    import pyspark

    return pyspark.__version__


if __name__ == "__main__":
    sys.exit(main())
