"""The Nexmark generator alone, timed against its own version at another git revision (a change's cost, measured).

    .venv/bin/python bench/nexmark_generator.py --baseline 17406f2            # 10 M events, 5 rounds
    .venv/bin/python bench/nexmark_generator.py --baseline main --events 1000000 --rounds 3

Compiles models/nexmark/generator/nexmark_events.sql as it is in this checkout and as it was at the baseline
revision (`git show`), both by dbt with the same settings (the var `nexmark`: {events: N}, the reference generator's
other defaults), and runs them into Spark's no-op sink in one local[2] SparkSession, in turn (baseline, this
checkout, baseline, ...), so that both see the same machine. What is timed is making the events, not writing them.
Prints every run's wall-clock seconds and the CPU seconds the JVM spent on it (steadier than wall time when other
work shares the machine), the median and range of each, and the ratio of this checkout to the baseline within each
round; Spark's and dbt's logs go to .spark/bench/nexmark/logs. Nothing is written to docs/ (docs/nexmark.md quotes
runs).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

from harness import REPO, BenchSpark, cpu_seconds, dbt, timed_rounds

WORK_DIR = REPO / ".spark" / "bench" / "nexmark"
MODEL = "models/nexmark/generator/nexmark_events.sql"


@dataclass(frozen=True)
class Settings:
    events: int
    baseline: str
    rounds: int
    timeout_s: int

    @classmethod
    def from_arguments(cls, argv: list[str] | None) -> Settings:
        parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
        parser.add_argument("--baseline", required=True, help="the git revision to compare with (e.g. main, 17406f2)")
        parser.add_argument("--events", type=int, default=10_000_000, help="events to make per run")
        parser.add_argument("--rounds", type=int, default=5, help="runs of each version, in turn")
        parser.add_argument("--timeout", type=int, default=900, help="seconds before a run is cancelled")
        args = parser.parse_args(argv)
        return cls(args.events, args.baseline, args.rounds, args.timeout)


def model_at(revision: str) -> str:
    """The generator model's source at a git revision; raises naming the revision if git does not know it."""
    shown = subprocess.run(["git", "show", f"{revision}:{MODEL}"], cwd=REPO, capture_output=True, text=True)
    if shown.returncode != 0:
        raise SystemExit(f"git show {revision}:{MODEL} failed: {shown.stderr.strip()}")
    return shown.stdout


def compiled(source: str, events: int) -> str:
    """The SQL that dbt compiles a version of the generator model to, for `events` events."""
    variables = json.dumps({"nexmark": {"events": events}})
    result = dbt(["compile", "--inline", source, "--vars", variables], WORK_DIR / "logs")
    return result.results[0].node.compiled_code


def jvm_cpu_seconds(spark) -> float:
    """CPU seconds the Spark JVM has used so far (local mode: the driver and the executors' tasks), from /proc: on a
    machine shared with other work, a run's CPU time moves far less than its wall time."""
    return cpu_seconds(spark.sparkContext._gateway.proc.pid)


@dataclass
class Runs:
    """Each version's runs, in the order made: wall-clock and JVM CPU seconds."""

    wall: dict[str, list[float]] = field(default_factory=lambda: {"baseline": [], "this checkout": []})
    cpu: dict[str, list[float]] = field(default_factory=lambda: {"baseline": [], "this checkout": []})

    def summary(self, label: str, baseline: str) -> str:
        lines = []
        for measure, runs in (("wall", self.wall), ("CPU", self.cpu)):
            for name in runs:
                values = runs[name]
                lines.append(f"{measure} {name + (f' ({baseline})' if name == 'baseline' else ''):<24} "
                             f"{', '.join(f'{v:.1f}' for v in values)} s; median {statistics.median(values):.1f} s, "
                             f"range {min(values):.1f}-{max(values):.1f} s")
            ratios = [c / b for b, c in zip(runs["baseline"], runs["this checkout"])]
            lines.append(f"{measure} {label}: {statistics.median(runs['this checkout']) / statistics.median(runs['baseline']):.3f}x "
                         f"(medians); per round {', '.join(f'{r:.2f}' for r in ratios)} "
                         f"(median {statistics.median(ratios):.3f}, range {min(ratios):.2f}-{max(ratios):.2f})")
        return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    settings = Settings.from_arguments(argv)
    (WORK_DIR / "logs").mkdir(parents=True, exist_ok=True)
    spark_settings = BenchSpark(WORK_DIR / "spark", log_file=WORK_DIR / "logs" / "spark.log")
    spark_settings.configure_environment()
    load = ", ".join(f"{v:.1f}" for v in os.getloadavg())
    print(f"The Nexmark generator, {settings.events:,} events into the no-op sink: this checkout against "
          f"{settings.baseline}, {settings.rounds} rounds (load average now {load}).\n"
          f"Logs: {WORK_DIR / 'logs'}", flush=True)
    spark = spark_settings.session()
    queries = {
        "baseline": compiled(model_at(settings.baseline), settings.events),
        "this checkout": compiled((REPO / MODEL).read_text(), settings.events),
    }
    spark.range(1_000_000).selectExpr("sum(xxhash64(id))").collect()  # warm-up
    runs, cpu_before = Runs(), jvm_cpu_seconds(spark)

    def record(round_number: int, name: str, seconds: float | None) -> None:
        nonlocal cpu_before
        cpu = jvm_cpu_seconds(spark)
        runs.cpu[name].append(cpu - cpu_before)
        cpu_before = cpu
        if seconds is not None:
            runs.wall[name].append(seconds)
        print(f"  round {round_number}: {name:<13} {'timed out' if seconds is None else f'{seconds:.1f} s'}, "
              f"CPU {runs.cpu[name][-1]:.1f} s (load average {os.getloadavg()[0]:.1f})", flush=True)

    timed = timed_rounds(spark, queries, settings.rounds, settings.timeout_s, progress=record)
    if not all(timed.values()):
        print(f"A run passed {settings.timeout_s} s: {timed}")
        return 1
    print(f"\n{runs.summary('this checkout / baseline', settings.baseline)}")
    print(f"load average after: {', '.join(f'{v:.1f}' for v in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
