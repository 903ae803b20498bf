"""The cold paths of a fresh process, taken once before its first interval instead of inside it.

In a new JVM the first interval of the hourly DAG cost 1.7x the later ones at 40,000 events an hour (`make
bench-volume`): not table creation or a bigger parse, but cold code. Spark's analyzer and optimizer run interpreted
until the JIT compiles them, and the landing parser is the largest expression the pipeline has (stg_order_events:
12.3 s cold against 3.4-4.5 s warm, most of it analysis and code generation); Great Expectations' first context
(its import and project files) took about 5 s of the first rejection gate. `warm_up()` pays both on a few lines of
its own, every path of the parser among them (a valid line, an escape, a duplicate key, a nested value, a number out
of range, a line that is not JSON), so the first interval costs what the others do and the start says what it took.

It reads and writes no pipeline table: `dbt show` selects the staging model over a file of its own (named as a
landing file must be, in a folder the landing scan does not read) and returns the rows to this process only."""

from __future__ import annotations

import logging
import time
from pathlib import Path

from window_tvf_pipeline.config import Settings

log = logging.getLogger(__name__)
FOLDER = ".warm-up"  # under the landing folder: the landing scan reads only its events/ and prices/ folders
LINES = (
    '{"event_id":"w1","user_id":"u1","item_id":"i1","quantity":2,"event_time":"1970-01-01T00:00:00Z",'
    '"arrival_time":"1970-01-01T00:00:01Z"}',
    '{"event_id": "w\\u0032", "user_id": "u1", "item_id": "i1", "quantity": 2.0, "event_time": null, '
    '"arrival_time": "1970-01-01T00:00:01+00:00"}',
    '{"event_id":"w3","event_id":"w4","user_id":"u1","item_id":"i1","quantity":1,"arrival_time":"1970-01-01T00:00:01Z"}',
    '{"event_id":"w5","user_id":{"id":"u1"},"item_id":"i1","quantity":1,"arrival_time":"1970-01-01T00:00:01Z"}',
    '{"event_id":"w6","user_id":"u1","item_id":"i1","quantity":1e30,"arrival_time":"1970-01-01T00:00:01Z"}',
    "not json at all",
)
REASONS = (None, None, "duplicate_field:event_id", "bad_type:user_id", "out_of_range:quantity", "not_json")


class WarmUpFailed(RuntimeError):
    """The parser did not give its documented verdicts on the warm-up lines."""


def warm_up(settings: Settings | None = None) -> float:
    """Runs the parser and opens Great Expectations' context once; returns the seconds it took. Raises
    WarmUpFailed when the parser's verdicts on its lines are not the documented ones (a broken parser stops a start,
    not an interval)."""
    from window_tvf_pipeline.dbt import dbt
    from window_tvf_pipeline.quality import open_context

    settings = settings or Settings.from_environment()
    began = time.monotonic()
    lines = _lines_file(settings.landing_dir / FOLDER)
    # --indirect-selection empty: the model alone, not the tests on its (not yet built) table
    shown = dbt(["show", "--select", "stg_order_events", "--indirect-selection", "empty", "--limit", str(len(LINES)),
                 "--quiet"], variables={"landing_event_files": [str(lines)]}, settings=settings)
    table = shown.results[0].agate_table
    verdicts = sorted((row["line_number"], row["reason"]) for row in table.rows)
    if verdicts != list(enumerate(REASONS, start=1)):
        raise WarmUpFailed(f"stg_order_events read the warm-up lines of {lines} as {verdicts}, not as "
                           f"{list(enumerate(REASONS, start=1))}")
    with open_context(settings):
        pass
    seconds = time.monotonic() - began
    log.info("Warmed up the parser and Great Expectations in %.1f s", seconds)
    return seconds


def _lines_file(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "events_1970-01-01T00.jsonl"
    path.write_text("\n".join(LINES) + "\n", encoding="utf-8")
    return path
