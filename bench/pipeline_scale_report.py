"""Writes docs/benchmarks/pipeline_scale.md and its chart from a `pipeline_scale.py` run. The measured part lies between
two markers; what is written by hand around them (the reading of the numbers) stays as it is."""

from __future__ import annotations

import statistics
from pathlib import Path
from typing import Any

BEGIN, END = "<!-- measured by make bench-pipeline: begin -->", "<!-- measured by make bench-pipeline: end -->"
TASKS = ["build_event_windows", "load_price_snapshots", "build_priced_orders", "check_order_windows"]


def _chart(data: dict[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    intervals = data["intervals"][1:]
    xs = [r["interval"] for r in intervals]
    seconds = [r["seconds"] for r in intervals]
    rows = [sum(sum(v.values()) for v in r["rows_read"].values()) / 1e6 for r in intervals]
    mean_x, mean_y = statistics.fmean(xs), statistics.fmean(seconds)
    fitted = [mean_y + data["slope"] * (x - mean_x) for x in xs]
    figure, (top, bottom) = plt.subplots(2, 1, figsize=(9, 6), sharex=True, height_ratios=[2, 1])
    top.plot(xs, seconds, marker=".", linewidth=1, label="seconds per interval")
    top.plot(xs, fitted, linestyle="--", label=f"fitted: {data['slope']:+.3f} s per interval")
    top.set_ylabel("seconds")
    top.set_ylim(bottom=0)
    top.legend(loc="lower right")
    top.set_title(f"Hourly runs over {data['hours']} hours of --large events (interval 0 left out)")
    bottom.bar(xs, rows, color="tab:gray")
    bottom.set_ylabel("million rows read")
    bottom.set_xlabel("interval (hours since the first)")
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)


def _measured(data: dict[str, Any], chart: Path) -> str:
    intervals = data["intervals"]
    machine = data["machine"]
    met = lambda ok: "met" if ok else "**missed**"  # noqa: E731
    k = data["ratio_intervals"]
    lines = [
        BEGIN,
        f"Run finished {machine['finished']}: {data['hours']} hourly intervals, {data['events']:,} event lines "
        f"generated, {machine['cores']} cores; load average {machine['load_before'][0]:.1f} before and "
        f"{machine['load_after'][0]:.1f} after (above {machine['cores']} means other work shared the machine).",
        "",
        "| measure | value | target |",
        "|---|---|---|",
        f"| fitted slope, intervals 1..{data['hours'] - 1} | {data['slope']:+.3f} s per interval | < 0.05: "
        f"{met(data['slope'] < 0.05)} |",
        f"| mean of the last {k} / mean of intervals 1-{k} | {data['ratio']:.3f} | <= 1.10: {met(data['ratio'] <= 1.10)} |",
        f"| mean interval, 1..{data['hours'] - 1} | {statistics.fmean(r['seconds'] for r in intervals[1:]):.1f} s | |",
        f"| interval 0 (JVM start, full parse, tables created) | {intervals[0]['seconds']:.1f} s | |",
        "",
        f"![seconds and rows read per interval]({chart.name})",
        "",
        "Rows each model read, per interval (from the scans of the query that wrote it): interval 1, 6, 24, 48 and "
        "the last, then the median over intervals 1..N-1.",
        "",
    ]
    picks = [i for i in (1, 6, 24, 48, data["hours"] - 1) if i < data["hours"]]
    lines.append("| model | table read | " + " | ".join(f"#{i}" for i in picks) + " | median |")
    lines.append("|---|---|" + "---|" * (len(picks) + 1))
    pairs = sorted({(m, t) for r in intervals for m, v in r["rows_read"].items() for t in v})
    for model, table in pairs:
        values = [intervals[i]["rows_read"].get(model, {}).get(table, 0) for i in range(1, len(intervals))]
        row = [f"{intervals[i]['rows_read'].get(model, {}).get(table, 0):,}" for i in picks]
        lines.append(f"| {model} | {table} | " + " | ".join(row) + f" | {statistics.median(values):,.0f} |")
    lines += ["", "Every interval, seconds (the DAG run, and each task's last attempt):", ""]
    lines.append("| interval | start | run | " + " | ".join(TASKS) + " | rows read |")
    lines.append("|---|---|---|" + "---|" * (len(TASKS) + 1))
    for r in intervals:
        tasks = " | ".join(f"{r['tasks'].get(t, 0):.1f}" for t in TASKS)
        total = sum(sum(v.values()) for v in r["rows_read"].values())
        lines.append(f"| {r['interval']} | {r['start'][5:16]} | {r['seconds']:.1f} | {tasks} | {total:,} |")
    lines.append(END)
    return "\n".join(lines)


def write_report(data: dict[str, Any], doc: Path) -> None:
    chart = doc.with_suffix(".png")
    _chart(data, chart)
    measured = _measured(data, chart)
    text = doc.read_text() if doc.exists() else f"# The hourly pipeline over days\n\n{BEGIN}\n{END}\n"
    head, rest = text.split(BEGIN, 1)
    doc.write_text(head + measured + rest.split(END, 1)[1])
