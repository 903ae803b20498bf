"""Nexmark in batch, timed: each query of models/nexmark as built with window_tvf and as plain Spark SQL, on the same
generated events, in one local[2] SparkSession, into Spark's no-op sink (`make bench-nexmark`).

    .venv/bin/python bench/nexmark.py                          # 10 M events, then 100 M if the budget allows
    .venv/bin/python bench/nexmark.py --events 1000000 --doc docs/nexmark.md --repeats 1   # a reduced-size run

Events come from the dbt model nexmark_events (the generator; docs/nexmark.md) with the reference generator's
defaults, one schema per size (nexmark_10m, ...) in .spark/bench/nexmark, kept for the next run (made again when the
generator model changed). The queries are the compiled SQL of the dbt models, so what is timed is what `dbt build`
runs. Prints a line per query and a summary; rewrites the measured section of docs/nexmark.md (between its
bench-nexmark markers); Spark's and dbt's logs go to .spark/bench/nexmark/logs.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import sys
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from harness import CORES, REPO, BenchSpark, cell, dbt, ratio, timed_together

WORK_DIR = REPO / ".spark" / "bench" / "nexmark"
DOC = REPO / "docs" / "nexmark.md"
START_MARK, END_MARK = "<!-- bench-nexmark:start -->", "<!-- bench-nexmark:end -->"
GENERATOR = REPO / "models" / "nexmark" / "generator" / "nexmark_events.sql"
STAGING = ["nexmark_events", "stg_nexmark__person", "stg_nexmark__auction", "stg_nexmark__bid"]


@dataclass(frozen=True)
class Query:
    name: str
    meaning: str
    windows: str
    model: str  # built with window_tvf
    reference: str  # plain Spark SQL
    target: float | None  # the target for window_tvf / plain Spark; None: not a windowed query
    flink_per_core: float  # events/s per core published for Flink (nexmark/nexmark GUIDE_V1.md, 100 M events)
    floor: str | None = None  # a plain GROUP BY that every formulation must at least do; {schema} is the data set's


# The least work of q5 and q11: every bid grouped once by its key and a 2 s slice (q5's HOP slide) or a 10 s bucket
# (q11's gap), the grouping window_tvf's slicing starts from; no merge into windows, no max, no join.
FLOOR_SQL = """select {key}, unix_micros(cast(date_time as timestamp)) div {micros} as cell, count(*) as bids
from {{schema}}.stg_nexmark__bid group by 1, 2"""


QUERIES = [
    Query("q5", "hot items", "HOP 10 s every 2 s", "fct_nexmark_q5_hot_items", "plain_spark_nexmark_q5_hot_items",
          1 / 3, 22_140, FLOOR_SQL.format(key="auction", micros=2_000_000)),
    Query("q7", "highest bid", "TUMBLE 10 s", "fct_nexmark_q7_highest_bid", "plain_spark_nexmark_q7_highest_bid",
          1.0, 12_330),
    Query("q8", "new users", "TUMBLE 10 s, window join", "fct_nexmark_q8_new_users",
          "plain_spark_nexmark_q8_new_users", 1.0, 146_140),
    Query("q11", "user sessions", "SESSION 10 s per bidder", "fct_nexmark_q11_user_sessions",
          "plain_spark_nexmark_q11_user_sessions", 1.0, 39_700, FLOOR_SQL.format(key="bidder", micros=10_000_000)),
    Query("q15", "bidding statistics", "TUMBLE 1 day", "fct_nexmark_q15_bidding_statistics",
          "plain_spark_nexmark_q15_bidding_statistics", 1.0, 72_420),
    Query("q16", "channel statistics", "TUMBLE 1 day", "fct_nexmark_q16_channel_statistics",
          "plain_spark_nexmark_q16_channel_statistics", 1.0, 18_650),
    Query("q17", "auction statistics", "TUMBLE 1 day", "fct_nexmark_q17_auction_statistics",
          "plain_spark_nexmark_q17_auction_statistics", 1.0, 116_800),
    Query("q18", "last bid", "none (deduplicate)", "fct_nexmark_q18_last_bid", "plain_spark_nexmark_q18_last_bid",
          None, 53_700),
    Query("q19", "top 10 bids per auction", "none (top-N)", "fct_nexmark_q19_auction_top10_price",
          "plain_spark_nexmark_q19_auction_top10_price", None, 44_040),
]


@dataclass(frozen=True)
class Settings:
    sizes: tuple[int, ...]
    repeats: int
    budget_minutes: float
    timeout_s: int
    queries: tuple[Query, ...]
    doc: Path | None

    @classmethod
    def from_arguments(cls, argv: list[str] | None) -> Settings:
        parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
        parser.add_argument("--events", type=int, nargs="+", default=[10_000_000, 100_000_000],
                            help="data set sizes, smallest first; a larger one runs only if its estimate fits the budget")
        parser.add_argument("--repeats", type=int, default=1,
                            help="runs per query on the first size (median reported; 10 M events once each fills "
                                 "most of the 30 minutes); larger sizes run once")
        parser.add_argument("--budget-minutes", type=float, default=30, help="the whole run's time budget")
        parser.add_argument("--timeout", type=int, default=900, help="seconds before a query run is cancelled")
        parser.add_argument("--queries", default=",".join(q.name for q in QUERIES), help="e.g. q5,q11")
        parser.add_argument("--doc", type=Path, default=DOC, help="the Markdown file whose measured section to rewrite")
        parser.add_argument("--no-doc", action="store_true", help="print only")
        args = parser.parse_args(argv)
        wanted = args.queries.split(",")
        unknown = sorted(set(wanted) - {q.name for q in QUERIES})
        if unknown:
            parser.error(f"unknown queries {unknown}; known: {', '.join(q.name for q in QUERIES)}")
        return cls(tuple(sorted(args.events)), args.repeats, args.budget_minutes, args.timeout,
                   tuple(q for q in QUERIES if q.name in wanted), None if args.no_doc else args.doc)


@dataclass
class Measurement:
    query: Query
    events: int
    repeats: int
    package_s: float | None
    plain_s: float | None
    floor_s: float | None = None

    def per_core(self, seconds: float | None) -> str:
        return f"{self.events / seconds / CORES / 1000:,.0f} K" if seconds else "-"


@dataclass
class SizeRun:
    events: int
    generation: str  # how the data set came to be
    measurements: list[Measurement] = field(default_factory=list)
    skipped: str = ""


def label(events: int) -> str:
    return f"{events / 1e6:g}m" if events >= 1_000_000 else f"{events / 1e3:g}k"


def prepare(spark, events: int) -> str:
    """Generates the data set of this size into its own schema unless the last run left the same one there (same
    settings, same generator model)."""
    schema = f"nexmark_{label(events)}".replace(".", "_")
    os.environ["WINDOW_TVF_SCHEMA"] = schema
    variables = {"nexmark": {"events": events}}
    made_by = {**variables, "generator": hashlib.sha256(GENERATOR.read_bytes()).hexdigest()}
    marker = WORK_DIR / f"{schema}.json"
    if marker.exists() and json.loads(marker.read_text()) == made_by and \
            spark.catalog.tableExists(f"{schema}.nexmark_events"):
        return "reused from an earlier run"
    print(f"  generating {events:,} events into {schema} ...", flush=True)
    start = time.perf_counter()
    dbt(["run", "--select", *STAGING, "--vars", json.dumps(variables)], WORK_DIR / "logs")
    marker.write_text(json.dumps(made_by))
    return f"generated in {time.perf_counter() - start:.0f} s"


def compiled_queries(queries: tuple[Query, ...]) -> dict[str, str]:
    names = [name for q in queries for name in (q.model, q.reference)]
    results = dbt(["compile", "--select", *names], WORK_DIR / "logs").results
    return {r.node.name: r.node.compiled_code for r in results}


def estimate_seconds(previous: SizeRun, events: int, repeats: int, timeout_s: int) -> float:
    """Linear in the events: the previous size's query times (per run) scaled, plus generating the data."""
    factor = events / previous.events
    per_run = sum((m.package_s or timeout_s) + (m.plain_s or timeout_s) for m in previous.measurements)
    generation = float(previous.generation.split()[2]) if previous.generation.startswith("generated") else 0.0
    return factor * (per_run * repeats + generation)


def run(settings: Settings, spark) -> list[SizeRun]:
    started = time.monotonic()
    runs: list[SizeRun] = []
    for index, events in enumerate(settings.sizes):
        repeats = settings.repeats if index == 0 else 1
        if runs:
            needed = estimate_seconds(runs[-1], events, repeats, settings.timeout_s)
            left = settings.budget_minutes * 60 - (time.monotonic() - started)
            if needed > left:
                runs.append(SizeRun(events, "-", skipped=f"not run: estimated {needed / 60:.0f} min, "
                                                         f"{max(left, 0) / 60:.0f} min of the budget left"))
                print(f"{events:,} events: {runs[-1].skipped}", flush=True)
                continue
        print(f"{events:,} events ({repeats} run{'s' if repeats > 1 else ''} per query):", flush=True)
        size_run = SizeRun(events, prepare(spark, events))
        print(f"  data set {size_run.generation}", flush=True)
        sql = compiled_queries(settings.queries)
        spark.sql(f"select count(*) from {os.environ['WINDOW_TVF_SCHEMA']}.stg_nexmark__bid").collect()  # warm-up
        for query in settings.queries:
            # in turn (package, plain, package, ...): neither alone pays for a cold start
            floor = query.floor.format(schema=os.environ["WINDOW_TVF_SCHEMA"]) if query.floor else None
            seconds = timed_together(
                spark, {"package": sql[query.model], "plain": sql[query.reference], "floor": floor}, repeats,
                settings.timeout_s)
            package, plain = seconds["package"], seconds["plain"]
            size_run.measurements.append(Measurement(query, events, repeats, package, plain, seconds["floor"]))
            print(f"  {query.name:>4} {query.meaning:<24} window_tvf {cell(package, settings.timeout_s):>8} s   "
                  f"plain Spark {cell(plain, settings.timeout_s):>8} s   {ratio(package, plain):>6}"
                  + (f"   floor {cell(seconds['floor'], settings.timeout_s)} s" if floor else ""), flush=True)
        runs.append(size_run)
    return runs


def table(runs: list[SizeRun], timeout_s: int) -> str:
    lines = [
        "| events | query | windows | window_tvf s | plain Spark s | window_tvf / plain | target | met | floor s | "
        "floor / plain | window_tvf events/s/core | plain Spark events/s/core | Flink events/s/core (published) |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for size_run in runs:
        if size_run.skipped:
            lines.append(f"| {size_run.events:,} | all | | {size_run.skipped} | | | | | | | | | |")
            continue
        for m in size_run.measurements:
            q = m.query
            met = "-" if q.target is None or m.package_s is None or m.plain_s is None else \
                ("yes" if m.package_s <= q.target * m.plain_s else "no")
            target = "-" if q.target is None else f"<= {q.target:.2f}x"
            lines.append(
                f"| {m.events:,} | {q.name} {q.meaning} | {q.windows} | {cell(m.package_s, timeout_s)} | "
                f"{cell(m.plain_s, timeout_s)} | {ratio(m.package_s, m.plain_s)} | {target} | {met} | "
                f"{cell(m.floor_s, timeout_s) if q.floor else '-'} | {ratio(m.floor_s, m.plain_s) if q.floor else '-'} | "
                f"{m.per_core(m.package_s)} | {m.per_core(m.plain_s)} | {q.flink_per_core / 1000:,.1f} K |")
    return "\n".join(lines)


def write_doc(doc: Path, settings: Settings, runs: list[SizeRun], command: str, load: str) -> None:
    """Replaces the measured section between the markers; the rest of the document is written by hand."""
    measured = [r for r in runs if not r.skipped]
    reduced = max((r.events for r in measured), default=0) < 10_000_000
    note = (f"\n**Reduced-size run** ({', '.join(f'{r.events:,}' for r in measured)} events), not the benchmark's "
            "10 M / 100 M: made to check the command on a shared machine; ratios at this size are indicative only.\n"
            if reduced else "")
    generation = "; ".join(f"{r.events:,} events {r.generation}" for r in measured)
    section = f"""{START_MARK}
Made by `{command}` on {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC: {os.cpu_count()} cores,
Python {platform.python_version()}, Spark local[{CORES}], 12 GiB driver, every query into Spark's no-op sink, the
median of {settings.repeats} run(s) per query on the first size and one run on larger ones; load average {load}.
Data: the generator's defaults (10,000 events/s of event time, in order); {generation}.
{note}
{table(runs, settings.timeout_s)}

"window_tvf / plain" divides the dbt model's time by the plain Spark SQL formulation's (below 1.00x: window_tvf is
faster). "floor": q5's and q11's bids grouped once by key and 2 s slice or 10 s bucket, nothing more; slicing
starts from this grouping, so "floor / plain" bounds the ratio within its reach. Events/s/core: all events of the
data set (persons, auctions and bids) over the query's time and {CORES} cores. The Flink column is context from another execution model (a streaming job on a cluster; see below).
{END_MARK}"""
    text = doc.read_text() if doc.exists() else f"# Nexmark in batch\n\n{START_MARK}\n{END_MARK}\n"
    if START_MARK not in text or END_MARK not in text:
        raise SystemExit(f"{doc} has no {START_MARK} ... {END_MARK} section to rewrite")
    doc.write_text(text[:text.index(START_MARK)] + section + text[text.index(END_MARK) + len(END_MARK):])


def load_average() -> str:
    return ", ".join(f"{v:.1f}" for v in os.getloadavg())


def main(argv: list[str] | None = None) -> int:
    settings = Settings.from_arguments(argv)
    (WORK_DIR / "logs").mkdir(parents=True, exist_ok=True)
    spark_settings = BenchSpark(WORK_DIR / "spark", log_file=WORK_DIR / "logs" / "spark.log")
    spark_settings.configure_environment()
    command = " ".join(["bench/nexmark.py", *(argv if argv is not None else sys.argv[1:])]).strip()
    load_before = load_average()
    print(f"Nexmark in batch: {', '.join(q.name for q in settings.queries)} on "
          f"{', '.join(f'{e:,}' for e in settings.sizes)} events, budget {settings.budget_minutes:g} min "
          f"(load average now {load_before}).\nLogs: {WORK_DIR / 'logs'} (spark.log, pyspark.log, dbt.log)", flush=True)
    started = time.monotonic()
    runs = run(settings, spark_settings.session())
    print(f"\nDone in {(time.monotonic() - started) / 60:.1f} min.\n\n{table(runs, settings.timeout_s)}")
    if settings.doc:
        write_doc(settings.doc, settings, runs, command, f"{load_before} before, {load_average()} after")
        print(f"\nWritten: {settings.doc}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
