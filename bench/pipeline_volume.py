"""The hourly pipeline at production volume, and the landing parser against Spark's own JSON reader.

    make bench-volume                                   # everything below (about an hour on 2 quiet cores)
    make bench-volume VOLUME_ARGS="--parts shapes --shapes 40000"   # one part, one shape

Parts (each in a process of its own, so every part starts a fresh JVM and measures its own peak memory):
- shapes: for 40,000, 400,000 and 2,000,000 events an hour (the generator's LARGE shape scaled: a user per 20
  events an hour, its defects, late and duplicated events included), three hourly intervals through `dag.test()` on
  the embedded Spark, as `make pipeline` runs them: each interval's and each task's seconds, seconds per million
  events, the JVM's peak resident memory. Spark's start, dbt's first parse and the warm-up of the cold paths
  (window_tvf_pipeline.warm_up: the parser's first analysis, Great Expectations' first context) come before the first
  interval and are reported apart (a deployment pays them once per process).
- late-day: at 400,000 an hour, the day's second interval (01:00 UTC) and a late one (22:00 UTC), each after the
  tables were built up to it in one full refresh (so both see a whole deduplication TTL of history).
- parser: one session, median of 3: parse_json_lines over 1 M and 10 M landing lines read as text, against Spark's
  JSON reader with the same fields typed (PERMISSIVE, a corrupt-record column), from_json into a map (the fast
  path's one parse), from_json into the typed fields (the floor of any parse of a text column) and the text read
  alone; the time planning the macro's query takes; which path the lines took; the cores' use while parsing one big file.

Landing files are generated once per shape into .spark/bench-volume/landing-<events an hour>-<hours>h and reused.
Results: docs/benchmarks/pipeline_volume.md (and docs/benchmarks/pipeline_volume.json); the full logs in
.spark/bench-volume/<part>.log.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from harness import BENCHMARKS, REPO

WORK = REPO / ".spark" / "bench-volume"
DOC = BENCHMARKS / "pipeline_volume.md"
RESULTS = BENCHMARKS / "pipeline_volume.json"
BEGIN, END = "<!-- measured by make bench-volume: begin -->", "<!-- measured by make bench-volume: end -->"
SCHEMA = "volume_bench"
START = datetime(2026, 11, 1, tzinfo=timezone.utc)  # midnight UTC: intervals line up with the UTC days
SHAPES = [40_000, 400_000, 2_000_000]
LATE_DAY_EVENTS = 400_000
SECOND, LATE = 25, 46  # the intervals of the late-day part: 01:00 and 22:00 UTC of the second day
PARSER_LINES = [1_000_000, 10_000_000]


# --- the parts, each run in a fresh process -------------------------------------------------------------------


def _environment(part: str) -> Path:
    """This part's own Spark, Airflow and Great Expectations directories, before anything imports them."""
    home = WORK / part
    shutil.rmtree(home, ignore_errors=True)
    home.mkdir(parents=True)
    os.environ.update(
        WINDOW_TVF_SPARK_DIR=str(home / "spark"),
        WINDOW_TVF_SPARK_CONF_DIR=str(REPO / "spark_conf"),
        WINDOW_TVF_GX_DIR=str(home / "great_expectations"),
        WINDOW_TVF_SCHEMA=SCHEMA,
        WINDOW_TVF_PIPELINE_START=START.isoformat(),
        DBT_PROFILES_DIR=str(REPO),
        DBT_LOG_PATH=str(home / "dbt-logs"),
        DBT_SEND_ANONYMOUS_USAGE_STATS="False",
    )
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    sys.path.insert(0, str(REPO / "dags"))
    return home


def _landing(events_per_hour: int, hours: int) -> Path:
    """The landing files of `hours` hours at this rate, generated once and kept (a marker says they are whole)."""
    sys.path.insert(0, str(REPO / "dags"))
    from window_tvf_pipeline.generate import LARGE, Shape, write_landing

    landing = WORK / f"landing-{events_per_hour}-{hours}h"
    done = landing / "generated.json"
    if not done.exists():
        shutil.rmtree(landing, ignore_errors=True)
        shape = Shape(users=max(LARGE.users, events_per_hour // 20), events_per_hour=events_per_hour)
        began = time.monotonic()
        lines = write_landing(landing, START, hours, shape)
        done.write_text(json.dumps({"lines": lines, "seconds": round(time.monotonic() - began, 1)}))
    return landing


def _jvm_pid(spark: Any) -> int:
    return int(spark.sparkContext._jvm.java.lang.ProcessHandle.current().pid())


def _peak_rss_gib(pid: int) -> float:
    """The JVM's peak resident set (VmHWM) so far."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return round(int(line.split()[1]) / 1024 / 1024, 2)
    return float("nan")


def _events_in(landing: Path, start: datetime) -> int:
    from window_tvf_pipeline.landing import event_files

    return sum(sum(1 for _ in path.open("rb")) for path in event_files(landing, start, start + timedelta(hours=1)))


def _start(settings: Any) -> tuple[Any, float, float]:
    """Spark's start and dbt's first parse (`dbt show`, as the first task would pay them), then the warm-up
    (window_tvf_pipeline.warm_up), each timed."""
    from window_tvf_pipeline.spark import spark_session
    from window_tvf_pipeline.warm_up import warm_up

    began = time.monotonic()
    spark = spark_session(settings)
    started = round(time.monotonic() - began, 1)
    return spark, started, round(warm_up(settings), 1)


def _interval(hourly: Any, landing: Path, start: datetime) -> dict[str, Any]:
    from window_tvf_pipeline import dag_runs

    lines = _events_in(landing, start)
    began = time.monotonic()
    outcome = dag_runs.run_interval(hourly, start)
    seconds = time.monotonic() - began
    if outcome.failed_tasks:
        raise RuntimeError(f"interval {start:%Y-%m-%dT%H} failed in {outcome.failed_tasks}")
    return {"start": start.isoformat(), "lines": lines, "seconds": round(seconds, 1),
            "seconds_per_million": round(seconds / (lines / 1e6), 1),
            "tasks": {t.task_id: round(t.seconds, 1) for t in outcome.tasks}}


def part_shape(events_per_hour: int) -> dict[str, Any]:
    _environment(f"shape-{events_per_hour}")
    landing = _landing(events_per_hour, 3)
    os.environ["WINDOW_TVF_LANDING_DIR"] = str(landing)
    from window_tvf_pipeline import dag_runs
    from window_tvf_pipeline.config import Settings

    settings = Settings.from_environment()
    dag_runs.configure_airflow(WORK / f"shape-{events_per_hour}" / "airflow")
    dag_runs.prepare_airflow(settings)
    spark, started, warmed = _start(settings)
    hourly = dag_runs.load_dag("window_tvf_orders_hourly")
    intervals = [_interval(hourly, landing, START + timedelta(hours=n)) for n in range(3)]
    return {"events_per_hour": events_per_hour, "start_seconds": started, "warm_up_seconds": warmed,
            "intervals": intervals,
            "jvm_peak_gib": _peak_rss_gib(_jvm_pid(spark))}


def _full_refresh(landing: Path, until: datetime, settings: Any) -> float:
    """Every table built at once from the landing files of the hours before `until` (no interval: the models
    aggregate everything), as an hourly run would have left them; timed."""
    from window_tvf_pipeline.dbt import dbt
    from window_tvf_pipeline.landing import event_files, price_files

    began = time.monotonic()
    variables = {
        "landing_event_files": [str(p) for p in event_files(landing, START, until)],
        "landing_price_files": [str(p) for p in price_files(landing, START, until)],
        "allowed_lateness": settings.allowed_lateness,
        "deduplication_ttl": settings.deduplication_ttl,
    }
    dbt(["build", "--full-refresh", "--select", "tag:order_pipeline", "--exclude", "tag:microbatch"], variables, settings)
    return round(time.monotonic() - began, 1)


def part_late_day() -> dict[str, Any]:
    _environment("late-day")
    landing = _landing(LATE_DAY_EVENTS, LATE + 1)
    os.environ["WINDOW_TVF_LANDING_DIR"] = str(landing)
    from window_tvf_pipeline import dag_runs
    from window_tvf_pipeline.config import Settings

    settings = Settings.from_environment()
    dag_runs.configure_airflow(WORK / "late-day" / "airflow")
    dag_runs.prepare_airflow(settings)
    spark, started, warmed = _start(settings)
    hourly = dag_runs.load_dag("window_tvf_orders_hourly")
    result: dict[str, Any] = {"events_per_hour": LATE_DAY_EVENTS, "start_seconds": started}
    for name, hour in (("second", SECOND), ("late", LATE)):
        until = START + timedelta(hours=hour)
        built = _full_refresh(landing, until, settings)
        result[name] = {"built_before_in_seconds": built, **_interval(hourly, landing, until)}
    result["jvm_peak_gib"] = _peak_rss_gib(_jvm_pid(spark))
    return result


def part_parser(line_counts: list[int]) -> dict[str, Any]:
    home = _environment("parser")
    sys.path.insert(0, str(REPO / "bench"))
    from harness import BenchSpark, compile_inline, cpu_seconds

    source = _landing(1_000_000, 1)
    one_hour = next((source / "events").glob("*.jsonl"))
    bench = BenchSpark(home / "spark", driver_memory="8g", shuffle_partitions=4, log_file=home / "spark.log")
    bench.configure_environment()
    spark = bench.session()
    pid = _jvm_pid(spark)
    fields = json.dumps({
        "event_id": {"type": "string", "key": True, "pattern": "[^\\s\\p{Z}\\p{C}]{1,128}"},
        "user_id": {"type": "string", "pattern": "[^\\s\\p{Z}\\p{C}]{1,128}"},
        "item_id": {"type": "string", "pattern": "[^\\s\\p{Z}\\p{C}]{1,128}"},
        "quantity": {"type": "int", "min": 1},
        "event_time": {"type": "timestamp", "require_zone": True, "min": "1970-01-01T00:00:00Z",
                       "max": "2099-12-31T23:59:59.999999Z", "required": False, "nullable": True},
        "arrival_time": {"type": "timestamp", "require_zone": True, "min": "1970-01-01T00:00:00Z",
                         "max": "2099-12-31T23:59:59.999999Z"},
    })
    schema = ("event_id string, user_id string, item_id string, quantity int, event_time timestamp, "
              "arrival_time timestamp, _corrupt string")
    results: dict[str, Any] = {}
    for count in line_counts:
        path = home / f"lines-{count}.jsonl"
        original = sum(1 for _ in one_hour.open("rb"))
        with path.open("wb") as out:  # the hour's lines, repeated up to `count`
            remaining = count
            while remaining > 0:
                with one_hour.open("rb") as lines:
                    for line in lines:
                        out.write(line)
                        remaining -= 1
                        if remaining == 0:
                            break
        lines_sql = f"select value as line from text.`{path}`"
        macro = compile_inline(
            f"with lines as ({lines_sql}), parsed as ({{{{ window_tvf._parse_json_lines('lines', {fields}, "
            f"max_line_bytes=65536, path_column='parse_path') }}}}) select * from parsed")
        numbered = compile_inline(
            f"with lines as ({{{{ window_tvf.text_file_lines(['{path}']) }}}}), parsed as "
            f"({{{{ window_tvf.parse_json_lines('lines', {fields}, max_line_bytes=65536) }}}}) select * from parsed")
        queries = {
            "Spark's JSON reader": lambda: spark.read.schema(schema).option("mode", "PERMISSIVE")
            .option("columnNameOfCorruptRecord", "_corrupt").json(str(path)),
            "parse_json_lines": lambda: spark.sql(macro),
            "text_file_lines + parse_json_lines": lambda: spark.sql(numbered),
            "from_json into a map (the fast path's parse)": lambda: spark.sql(
                f"select from_json(value, 'map<string,string>') as parsed from text.`{path}`"),
            # the floor of any parse of a text column: Spark's own parse into the reader's typed fields
            "from_json into the typed fields": lambda: spark.sql(
                f"select from_json(value, '{schema.removesuffix(', _corrupt string')}') as parsed from text.`{path}`"),
            "the text read alone": lambda: spark.sql(f"select value from text.`{path}`"),
        }
        timings: dict[str, Any] = {}
        for name, make in queries.items():
            runs, cores = [], []
            for _ in range(4):  # a first run to warm up, then 3
                cpu, began = cpu_seconds(pid), time.monotonic()
                make().write.format("noop").mode("overwrite").save()
                wall = time.monotonic() - began
                runs.append(wall)
                cores.append((cpu_seconds(pid) - cpu) / wall)
            timings[name] = {"seconds": round(statistics.median(runs[1:]), 2), "runs": [round(r, 2) for r in runs[1:]],
                             "cores_busy": round(statistics.median(cores[1:]), 2)}
        planning = []  # parse, analysis, optimization and physical planning of the macro's query: paid per query
        for _ in range(4):
            began = time.monotonic()
            spark.sql(macro)._jdf.queryExecution().executedPlan()
            planning.append(time.monotonic() - began)
        paths = {row.parse_path: row.lines for row in spark.sql(
            f"select parse_path, count(*) as lines from ({macro}) group by parse_path").collect()}
        rejected = spark.sql(f"select count(*) from ({macro}) where reason is not null").first()[0]
        results[str(count)] = {"lines": count, "distinct_lines": original, "timings": timings, "paths": paths,
                               "rejected": rejected, "planning_seconds": round(statistics.median(planning[1:]), 2), "tasks": spark.sql(f"select * from text.`{path}`").rdd.getNumPartitions()}
        path.unlink()
    results["jvm_peak_gib"] = _peak_rss_gib(pid)
    return results


# --- the orchestration and the report ------------------------------------------------------------------------


def _run_part(part: str, log: Path) -> dict[str, Any]:
    """A part in a fresh process (everything it prints to `log`); it writes its result, JSON, beside the log."""
    result = log.with_suffix(".json")
    result.unlink(missing_ok=True)
    with log.open("w") as out:
        done = subprocess.run([sys.executable, __file__, "--part", part, "--result", str(result)],
                              stdout=out, stderr=subprocess.STDOUT, cwd=REPO)
    if done.returncode != 0 or not result.exists():
        raise RuntimeError(f"bench part {part} failed (exit {done.returncode}); see {log}")
    return json.loads(result.read_text())


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def _ratio(value: float, base: float) -> str:
    return f"{value / base:.2f}x"


def _measured(*parts: dict[str, Any]) -> str:
    """When and on which commit a part's results were measured (parts re-run alone keep the others' results)."""
    stamps = sorted({f"{part.get('measured', '?')} (commit {part.get('commit', '?')}, load before "
                     f"{part.get('load_before', '?')})" for part in parts})
    return "Measured " + ", ".join(stamps) + "."


def report(data: dict[str, Any]) -> str:
    lines = [f"Last run {data['finished']} on {data['cores']} cores (load before {data['load_before']}), commit "
             f"{data['commit']}; `make bench-volume`. Each part below says when it was measured.", ""]
    shapes = data.get("shapes", [])
    if shapes:
        lines += [_measured(*shapes), "","| events an hour | Spark start + dbt parse, warm-up | interval 0 / 1 / 2 (s) | first / later | s per M events (1, 2) "
                  "| build_event_windows (s) | check_order_windows (s) | JVM peak |", "|---|---|---|---|---|---|---|---|"]
        for shape in shapes:
            runs = shape["intervals"]
            later = statistics.fmean(r["seconds"] for r in runs[1:])
            lines.append(
                f"| {shape['events_per_hour']:,} ({runs[1]['lines']:,} lines) | {shape['start_seconds']} s, {shape['warm_up_seconds']} s | "
                f"{' / '.join(str(r['seconds']) for r in runs)} | {_ratio(runs[0]['seconds'], later)} | "
                f"{runs[1]['seconds_per_million']} / {runs[2]['seconds_per_million']} | "
                f"{' / '.join(str(r['tasks'].get('build_event_windows')) for r in runs)} | "
                f"{' / '.join(str(r['tasks'].get('check_order_windows')) for r in runs)} | {shape['jvm_peak_gib']} GiB |")
        lines.append("")
    late = data.get("late_day")
    if late:
        second, last = late["second"], late["late"]
        lines += [
            _measured(late), "",
            f"Late in a day at {late['events_per_hour']:,} an hour: the second interval of the day ({second['start'][11:16]} "
            f"UTC, {second['lines']:,} lines) took **{second['seconds']} s**, a late one ({last['start'][11:16]} UTC, "
            f"{last['lines']:,} lines) **{last['seconds']} s**: {_ratio(last['seconds'], second['seconds'])} "
            f"(tables built up to each in one full refresh: {second['built_before_in_seconds']} s and "
            f"{last['built_before_in_seconds']} s).", "",
            "| task | second (s) | late (s) |", "|---|---|---|"]
        lines += [f"| {task} | {second['tasks'].get(task)} | {last['tasks'].get(task)} |" for task in second["tasks"]]
        lines.append("")
    parser = data.get("parser")
    if parser:
        lines += [_measured(parser), "", "| lines | query | seconds (median of 3) | x Spark's JSON reader | cores busy |", "|---|---|---|---|---|"]
        for key, result in parser.items():
            if not isinstance(result, dict):
                continue
            reader = result["timings"]["Spark's JSON reader"]["seconds"]
            for name, timing in result["timings"].items():
                lines.append(f"| {result['lines']:,} | {name} | {timing['seconds']} | {_ratio(timing['seconds'], reader)} | "
                             f"{timing['cores_busy']} |")
        lines.append("")
        for key, result in parser.items():
            if isinstance(result, dict):
                fast = result["paths"].get("fast", 0)
                lines.append(f"- {result['lines']:,} lines ({result['tasks']} read tasks): {fast:,} on the fast path "
                             f"({fast / result['lines']:.1%}), {result['paths'].get('exact', 0):,} on the exact path, "
                             f"{result['rejected']:,} rejected; planning the macro's query took "
                             f"{result.get('planning_seconds', '?')} s of its time.")
        lines.append("")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--parts", default="shapes,late-day,parser", help="shapes, late-day, parser (comma-separated)")
    parser.add_argument("--shapes", default=",".join(map(str, SHAPES)), help="events an hour, comma-separated")
    parser.add_argument("--parser-lines", default=",".join(map(str, PARSER_LINES)))
    parser.add_argument("--part", help=argparse.SUPPRESS)  # a part, run in this process (by the orchestration)
    parser.add_argument("--result", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.part:
        kind, _, value = args.part.partition(":")
        result = (part_shape(int(value)) if kind == "shape" else part_late_day() if kind == "late-day"
                  else part_parser([int(n) for n in value.split(",")]))
        args.result.write_text(json.dumps(result))
        return 0

    from rich.console import Console

    console = Console(highlight=False)
    WORK.mkdir(parents=True, exist_ok=True)
    data: dict[str, Any] = json.loads(RESULTS.read_text()) if RESULTS.exists() else {}
    data.update(cores=os.cpu_count(), load_before=[round(x, 1) for x in os.getloadavg()],
                commit=subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=REPO).stdout.strip())
    stamp = {"commit": data["commit"], "load_before": data["load_before"]}  # each part says when and where it was measured
    parts = args.parts.split(",")
    if "shapes" in parts:
        data["shapes"] = [s for s in data.get("shapes", []) if str(s["events_per_hour"]) not in args.shapes.split(",")]
        for events in args.shapes.split(","):
            log = WORK / f"shape-{events}.log"
            console.print(f"{int(events):,} events an hour: 3 intervals (log: {log}) ...")
            shape = _run_part(f"shape:{events}", log) | stamp | {"measured": _now()}
            data["shapes"].append(shape)
            data["shapes"].sort(key=lambda s: s["events_per_hour"])
            console.print("  intervals " + " / ".join(f"{r['seconds']} s" for r in shape["intervals"])
                          + f", JVM peak {shape['jvm_peak_gib']} GiB")
    if "late-day" in parts:
        log = WORK / "late-day.log"
        console.print(f"Late in a day at {LATE_DAY_EVENTS:,} an hour (log: {log}) ...")
        data["late_day"] = _run_part("late-day", log) | stamp | {"measured": _now()}
        console.print(f"  second interval {data['late_day']['second']['seconds']} s, late {data['late_day']['late']['seconds']} s")
    if "parser" in parts:
        log = WORK / "parser.log"
        console.print(f"The parser on {args.parser_lines} lines (log: {log}) ...")
        data["parser"] = _run_part(f"parser:{args.parser_lines}", log) | stamp | {"measured": _now()}
    data["finished"] = _now()
    RESULTS.write_text(json.dumps(data, indent=1) + "\n")
    sys.path.insert(0, str(REPO / "bench"))
    from harness import write_section

    body = report(data)
    write_section(DOC, "Results", BEGIN, END, body)
    console.print(body)
    console.print(f"Wrote {DOC} (section 'Production volume') and {RESULTS}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
