"""An independent model of gap filling (docs/gap_fill.md), for comparing window_gap_fill row for row.

Written from the definitions with window_reference.py's grids (Python's datetime and zoneinfo), not from the
macro's SQL:
- the grid's windows are enumerated on the wall clock: tumble and hop windows start on their grid, a cumulate
  window ends on its step grid and starts at its period's start; they are ordered by (end, start), and counting
  windows ("previous", a LOCF bound of N windows) counts grid windows;
- a window exists when some instant's wall time lies in it (a spring-forward night skips 02:00-03:00 in New York);
- a series is the existing windows whose window_time lies in [start, end), from a key's first window to its last
  (span 'key'; `end` given: to the end) or from the data's first window to its last (span 'data'; `start` or `end`
  given: from or to it); a window the input has keeps its values, an added one is filled per column.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Any

import window_reference as ref

UTC_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


@dataclass(frozen=True)
class Window:
    start: datetime  # wall time
    end: datetime  # wall time
    time: datetime  # window_time: an aware instant, or a wall time (zone None)
    exists: bool


def micros(value: datetime) -> int:
    """Epoch microseconds of an instant, or of a wall time read as UTC."""
    aware = value if value.tzinfo else value.replace(tzinfo=timezone.utc)
    delta = aware - UTC_EPOCH
    return (delta.days * 86400 + delta.seconds) * 1_000_000 + delta.microseconds


def grid_windows(tvf: str, arguments: dict[str, str], zone: str | None, low: datetime, high: datetime) -> list[Window]:
    """Every window of the grid that overlaps the wall times [low, high), ordered by (end, start)."""
    lengths = {key: ref.length(value) for key, value in arguments.items() if key in ("size", "slide", "step")}
    offset = ref.length(arguments["offset"]) if arguments.get("offset") else ref.Length()
    week_start = arguments.get("week_start", "monday")
    size = lengths["size"]
    spans: list[tuple[datetime, datetime]] = []
    if tvf == "cumulate":
        grid = ref.Grid(size, offset, week_start)
        _, first = grid.cell(low)
        _, last = grid.cell(high)
        for k in range(first - 1, last + 2):
            start = grid.start(k)
            period_end = ref.add_months(start - offset.fixed, size.months) + offset.fixed if size.months else start + size.fixed
            step, j = lengths["step"], 1
            while True:
                end = ref.add_months(start - offset.fixed, step.months * j) + offset.fixed if step.months else start + step.fixed * j
                if end > period_end:
                    break
                spans.append((start, end))
                j += 1
    else:
        grid = ref.Grid(lengths.get("slide", size), offset, week_start)
        reach = 1 if tvf == "tumble" else 2 + (size.months or 0) + (math.ceil(size.fixed / lengths["slide"].fixed) if not size.months else 0)
        _, first = grid.cell(low)
        _, last = grid.cell(high)
        for k in range(first - reach, last + 2):
            start = grid.start(k)
            end = ref.add_months(start - offset.fixed, size.months) + offset.fixed if size.months else start + size.fixed
            spans.append((start, end))
    windows = []
    for start, end in sorted(set(spans), key=lambda span: (span[1], span[0])):
        if end <= low or start >= high:
            continue
        last_ms = end - timedelta(milliseconds=1)
        if zone is None:
            windows.append(Window(start, end, last_ms, True))
        else:
            first_instant = ref.instant_of(start, zone)
            windows.append(Window(start, end, ref.instant_of(last_ms, zone), ref.wall_time(first_instant, zone) < end))
    return windows


def fill_value(kind: Any, column: str, i: int, real: dict[int, dict], windows: list[Window]) -> Any:
    """The value an added window i gets under fill `kind` (as window_gap_fill's fill argument)."""
    if isinstance(kind, (int, float)) and not isinstance(kind, bool):
        return kind
    if kind is None or kind == "null":
        return None
    if kind == "previous":
        return real[i - 1][column] if i - 1 in real else None
    earlier = [j for j in sorted(real) if j < i and real[j][column] is not None]
    if kind == "locf" or isinstance(kind, dict):
        if not earlier:
            return None
        j = earlier[-1]
        bound = kind.get("locf") if isinstance(kind, dict) else None
        if isinstance(bound, int) and i - j > bound:
            return None
        if isinstance(bound, str):
            amount, unit = bound.split()
            limit = timedelta(**{unit.rstrip("s") + "s": int(amount)})
            if micros(windows[i].time) - micros(windows[j].time) > limit // timedelta(microseconds=1):
                return None
        return real[j][column]
    if kind == "interpolate":
        later = [j for j in sorted(real) if j > i and real[j][column] is not None]
        if not earlier or not later:
            return None
        j, k = earlier[-1], later[0]
        tj, tk, ti = (micros(windows[n].time) for n in (j, k, i))
        return real[j][column] + (real[k][column] - real[j][column]) * float(ti - tj) / (tk - tj)
    raise ValueError(kind)


def gap_fill(
    windows: list[Window],
    rows: dict[tuple[Any, int], dict],
    fills: dict[str, Any],
    columns: list[str],
    span: str,
    start: datetime | None = None,
    end: datetime | None = None,
    keys: list[Any] | None = None,
) -> list[tuple]:
    """(key, window_start, window_end, window_time, *columns, is_filled) rows of the gap-filled series.

    `windows`: grid_windows() over a range wide enough for every row and bound; `rows`: {(key, window number): values}.
    `start`/`end`: bounds on window_time (instants, or wall times for zone None); `keys`: a dimension's keys."""
    in_range = [
        w.exists and (start is None or micros(w.time) >= micros(start)) and (end is None or micros(w.time) < micros(end))
        for w in windows
    ]
    all_keys = sorted({key for key, _ in rows} | set(keys or []), key=str)
    data = [i for _, i in rows]
    output = []
    for key in all_keys:
        real = {i: values for (k, i), values in rows.items() if k == key}
        if span == "key":
            first, last = min(real), (max(real) if end is None else len(windows))
        else:
            first = min(data) if start is None else -1
            last = max(data) if end is None else len(windows)
        for i, window in enumerate(windows):
            if not (first <= i <= last and in_range[i]):
                continue
            if i in real:
                values = [real[i][column] for column in columns]
            else:
                values = [fill_value(fills.get(column), column, i, real, windows) for column in columns]
            output.append((key, window.start, window.end, window.time, *values, i not in real))
    return output
