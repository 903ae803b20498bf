"""What the order pipeline's tables must hold, recomputed in plain Python from the landing files: an oracle
independent of Spark, dbt and the macros."""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path
from zoneinfo import ZoneInfo

QUARTER = timedelta(minutes=15)
SESSION_GAP = timedelta(minutes=10)


def _utc(text: str | None) -> datetime | None:
    """Naive UTC, as Spark returns timestamps under a UTC session."""
    return datetime.fromisoformat(text.replace("Z", "")) if text else None


@dataclass(frozen=True)
class Event:
    event_id: str
    user_id: str
    item_id: str
    quantity: int
    event_time: datetime | None
    arrival_time: datetime
    source_file: str
    arrival_hour: datetime


def landed_events(files: list[Path]) -> list[Event]:
    events = []
    for path in files:
        hour = datetime.strptime(path.stem.split("_")[1], "%Y-%m-%dT%H")
        for line in path.read_text().splitlines():
            record = json.loads(line)
            events.append(
                Event(
                    record["event_id"],
                    record["user_id"],
                    record["item_id"],
                    record["quantity"],
                    _utc(record["event_time"]),
                    _utc(record["arrival_time"]),
                    str(path),
                    hour,
                )
            )
    return events


def first_arrivals(events: list[Event], ttl: timedelta) -> list[Event]:
    """Flink's keep-first deduplication with a state TTL on arrival time: an event_id is kept when it was never kept,
    or when it was last kept at least `ttl` before this arrival hour; a dropped copy does not extend its life."""
    last_kept: dict[str, datetime] = {}
    kept = []
    for event in sorted(events, key=lambda e: (e.arrival_hour, e.arrival_time, e.source_file)):
        previous = last_kept.get(event.event_id)
        if previous is None or previous + ttl <= event.arrival_hour:
            last_kept[event.event_id] = event.arrival_hour
            kept.append(event)
    return kept


def classified(events: list[Event], allowed_lateness: timedelta, ttl: timedelta) -> dict[str, list[Event]]:
    """Kept arrivals, then on_time / late / early (event time after the end of its arrival hour) / no_event_time."""
    by_status: dict[str, list[Event]] = {"on_time": [], "late": [], "early": [], "no_event_time": []}
    for event in first_arrivals(events, ttl):
        if event.event_time is None:
            by_status["no_event_time"].append(event)
        elif event.event_time < event.arrival_hour - allowed_lateness:
            by_status["late"].append(event)
        elif event.event_time >= event.arrival_hour + timedelta(hours=1):
            by_status["early"].append(event)
        else:
            by_status["on_time"].append(event)
    return by_status


def tumble_15m(on_time: list[Event]) -> set[tuple]:
    """(window_start, item_id, orders, quantity, min_quantity, max_quantity)."""
    groups: dict[tuple, list[int]] = defaultdict(list)
    for event in on_time:
        epoch_offset = (event.event_time - datetime(1970, 1, 1)) % QUARTER
        groups[(event.event_time - epoch_offset, event.item_id)].append(event.quantity)
    return {(start, item, len(q), sum(q), min(q), max(q)) for (start, item), q in groups.items()}


def sessions_10m(on_time: list[Event]) -> set[tuple]:
    """(user_id, window_start, window_end, orders, quantity): an event at most `gap` after the last one joins."""
    by_user: dict[str, list[Event]] = defaultdict(list)
    for event in on_time:
        by_user[event.user_id].append(event)
    sessions = set()
    for user, events in by_user.items():
        events.sort(key=lambda e: e.event_time)
        current = [events[0]]
        for event in events[1:]:
            if event.event_time - current[-1].event_time <= SESSION_GAP:
                current.append(event)
            else:
                sessions.add(_session(user, current))
                current = [event]
        sessions.add(_session(user, current))
    return sessions


def _session(user: str, events: list[Event]) -> tuple:
    return (
        user,
        events[0].event_time,
        events[-1].event_time + SESSION_GAP,
        len(events),
        sum(e.quantity for e in events),
    )


def local_days(on_time: list[Event], zone: str) -> set[tuple]:
    """(window_start, window_end, item_id, orders, quantity) per local day in `zone`: an event's day is the date of
    its local time (zoneinfo), the window local midnight to the next local midnight (wall-clock values)."""
    groups: dict[tuple, list[int]] = defaultdict(list)
    for event in on_time:
        day = event.event_time.replace(tzinfo=timezone.utc).astimezone(ZoneInfo(zone)).date()
        groups[(datetime(day.year, day.month, day.day), event.item_id)].append(event.quantity)
    return {(start, start + timedelta(days=1), item, len(q), sum(q)) for (start, item), q in groups.items()}


def month_to_date(days: set[tuple]) -> set[tuple]:
    """(window_start, window_end, item_id, orders, quantity) of a month-to-date CUMULATE by day over local days: for
    each item and month, one window per day from the item's first day with events to the month's last day."""
    by_month: dict[tuple, dict[datetime, tuple[int, int]]] = defaultdict(dict)
    for start, _, item, orders, quantity in days:
        by_month[(item, start.replace(day=1))][start] = (orders, quantity)
    windows = set()
    for (item, month), totals in by_month.items():
        following = (month + timedelta(days=32)).replace(day=1)
        day, orders, quantity = min(totals), 0, 0
        while day < following:
            orders += totals.get(day, (0, 0))[0]
            quantity += totals.get(day, (0, 0))[1]
            day += timedelta(days=1)
            windows.add((month, day, item, orders, quantity))
    return windows
