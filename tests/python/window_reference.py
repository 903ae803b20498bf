"""An independent model of the window definitions, for comparing the macros row for row.

Written from the definitions in the README (Flink's for fixed sizes; the calendar rules for weeks, months,
quarters and years), with Python's datetime and zoneinfo, not from the macros' SQL:
- a `timestamp` is an instant; its wall time is what a clock in the zone shows (zoneinfo);
- windows are computed on wall times: fixed sizes are counted from 1970-01-01 00:00 of the wall clock, weeks
  start on a week day (Monday unless told otherwise), months on the first of the month, N-month windows every N
  months from January 1970; an offset shifts the grid;
- window_start and window_end are wall times; window_time is the instant at which the clock shows
  window_end - 1 ms: a wall time the zone skips moves forward by the gap (fold=0 before a gap), a repeated one
  takes the earlier offset (fold=0 in an overlap).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, timedelta, timezone
from zoneinfo import ZoneInfo

EPOCH = datetime(1970, 1, 1)
WEEK_DAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]


@dataclass(frozen=True)
class Length:
    """A window length: whole months, or a fixed timedelta (weeks flagged: their grid starts on a week day)."""

    months: int = 0
    fixed: timedelta = timedelta(0)
    weeks: bool = False


def length(text: str) -> Length:
    amount, unit = text.split()
    n = int(amount)
    unit = unit.rstrip("s")
    if unit in ("month", "quarter", "year"):
        return Length(months=n * {"month": 1, "quarter": 3, "year": 12}[unit])
    if unit == "week":
        return Length(fixed=timedelta(weeks=n), weeks=True)
    return Length(fixed=timedelta(**{unit + "s": n}))


def wall_time(instant: datetime, zone: str) -> datetime:
    """The naive wall time of an aware instant in `zone`."""
    return instant.astimezone(ZoneInfo(zone)).replace(tzinfo=None)


def instant_of(wall: datetime, zone: str) -> datetime:
    """The instant at which `zone`'s clock shows `wall` (gap: moved forward; overlap: the earlier offset)."""
    return wall.replace(tzinfo=ZoneInfo(zone), fold=0).astimezone(timezone.utc)


def add_months(day: datetime, months: int) -> datetime:
    index = day.year * 12 + day.month - 1 + months
    return day.replace(year=index // 12, month=index % 12 + 1)


def months_since_1970(wall: datetime) -> int:
    return (wall.year - 1970) * 12 + wall.month - 1


def month_start(index: int) -> datetime:
    return datetime(1970 + index // 12, index % 12 + 1, 1)


@dataclass(frozen=True)
class Grid:
    """Window starts: offset + k * period on the wall clock."""

    period: Length
    offset: Length
    week_start: str = "monday"

    def cell(self, wall: datetime) -> tuple[datetime, int]:
        """The start of the grid cell holding `wall`, and the cell's number k."""
        if self.period.months:
            shifted = wall - self.offset.fixed
            k = (months_since_1970(shifted) - self.offset.months) // self.period.months
            return self.start(k), k
        origin = EPOCH + self.offset.fixed
        if self.period.weeks:
            # the first week day of the week start after 1970-01-01 (a Thursday)
            origin += timedelta(days=(WEEK_DAYS.index(self.week_start) - 3) % 7)
        k = (wall - origin) // self.period.fixed
        return origin + k * self.period.fixed, k

    def start(self, k: int) -> datetime:
        if self.period.months:
            return month_start(k * self.period.months + self.offset.months) + self.offset.fixed
        origin = EPOCH + self.offset.fixed
        if self.period.weeks:
            origin += timedelta(days=(WEEK_DAYS.index(self.week_start) - 3) % 7)
        return origin + k * self.period.fixed


def plus(wall: datetime, amount: Length, times: int = 1) -> datetime:
    return add_months(wall, amount.months * times) if amount.months else wall + amount.fixed * times


def tumble(wall: datetime, size: Length, offset: Length, week_start: str = "monday") -> list[tuple[datetime, datetime]]:
    start, _ = Grid(size, offset, week_start).cell(wall)
    return [(start, plus(start, size) if not size.months else add_months(start, size.months))]


def hop(wall: datetime, slide: Length, size: Length, offset: Length, week_start: str = "monday"):
    grid = Grid(slide, offset, week_start)
    _, k = grid.cell(wall)
    windows = []
    while True:
        start = grid.start(k)
        end = add_months(start - offset.fixed, size.months) + offset.fixed if size.months else start + size.fixed
        if end <= wall:
            break
        windows.append((start, end))
        k -= 1
    return windows


def cumulate(wall: datetime, step: Length, size: Length, offset: Length, week_start: str = "monday"):
    grid = Grid(size, offset, week_start)
    start, _ = grid.cell(wall)
    period_end = add_months(start - offset.fixed, size.months) + offset.fixed if size.months else start + size.fixed
    windows, j = [], 1
    while True:
        end = add_months(start - offset.fixed, step.months * j) + offset.fixed if step.months else start + step.fixed * j
        if end > period_end:
            break
        if end > wall:
            windows.append((start, end))
        j += 1
    return windows


def window_rows(instant_or_wall: datetime, zone: str | None, tvf: str, **arguments) -> list[tuple[datetime, datetime, datetime]]:
    """(window_start, window_end, window_time) of every window holding the row.

    `zone` None: the value is a timestamp_ntz (its own wall clock) and window_time is a wall time; otherwise an
    aware instant, read on `zone`'s clock, and window_time is an aware UTC instant.
    """
    wall = instant_or_wall if zone is None else wall_time(instant_or_wall, zone)
    lengths = {key: length(value) for key, value in arguments.items() if key in ("size", "slide", "step")}
    offset = length(arguments["offset"]) if arguments.get("offset") else Length()
    week_start = arguments.get("week_start") or "monday"
    windows = {"tumble": tumble, "hop": hop, "cumulate": cumulate}[tvf](wall, *[lengths[k] for k in ("slide", "step", "size") if k in lengths], offset, week_start)
    rows = []
    for start, end in windows:
        last = end - timedelta(milliseconds=1)
        rows.append((start, end, last if zone is None else instant_of(last, zone)))
    return rows


def local_day(instant: datetime, zone: str) -> date:
    return wall_time(instant, zone).date()
