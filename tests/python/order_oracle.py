"""What the order pipeline's tables must hold, recomputed in plain Python from the landing files: an oracle
independent of Spark, dbt and the macros. A landing line is an order event by the rules of docs/dirty_feeds.md
(json_line_rules: Python's json and datetime decide); the others are rejected with their reason."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from decimal import Decimal
from pathlib import Path
from zoneinfo import ZoneInfo

from json_line_rules import file_lines, identifier, parse_line

QUARTER = timedelta(minutes=15)
SESSION_GAP = timedelta(minutes=10)
MAX_LINE_BYTES = 65536
INSTANT = {"type": "timestamp", "require_zone": True, "min": "1970-01-01T00:00:00Z", "max": "2099-12-31T23:59:59.999999Z"}
IDENTIFIER = {"type": "string", "valid": identifier}
# The definition of a valid order event (models/order_pipeline/stg_order_events.sql says the same in words).
EVENT_FIELDS = {
    "event_id": {**IDENTIFIER, "key": True},
    "user_id": IDENTIFIER,
    "item_id": IDENTIFIER,
    "quantity": {"type": "int", "min": 1},
    "event_time": {**INSTANT, "required": False, "nullable": True},
    "arrival_time": INSTANT,
}
PRICE_FIELDS = {
    "item_id": {**IDENTIFIER, "key": True},
    "price": {"type": "decimal(10,2)", "numbers_as_text": True, "min": 0},
    "valid_from": {"type": "timestamp", "require_zone": True},
}


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
    line_number: int = 0


@dataclass(frozen=True)
class Rejected:
    """A landing line that is no valid record (line_number None: an empty file), with its reason code."""

    source_file: str
    line_number: int | None
    reason: str


def _file_hour(path: Path) -> datetime:
    return datetime.strptime(path.stem.split("_")[1], "%Y-%m-%dT%H")


def landed_lines(files: list[Path]) -> tuple[list[Event], list[Rejected]]:
    """The valid events of the landing files, and their rejected lines."""
    events, rejected = [], []
    for path in files:
        lines = file_lines(path.read_bytes())
        if not lines:
            rejected.append(Rejected(str(path), None, "empty_file"))
        for number, line in enumerate(lines, start=1):
            parsed = parse_line(line, EVENT_FIELDS, MAX_LINE_BYTES)
            if parsed.reason:
                rejected.append(Rejected(str(path), number, parsed.reason))
                continue
            values = parsed.values
            events.append(
                Event(
                    values["event_id"],
                    values["user_id"],
                    values["item_id"],
                    values["quantity"],
                    values["event_time"],
                    values["arrival_time"],
                    str(path),
                    _file_hour(path),
                    number,
                )
            )
    return events, rejected


def landed_events(files: list[Path]) -> list[Event]:
    return landed_lines(files)[0]


def snapshot_prices(files: list[Path]) -> tuple[dict[datetime, dict[str, Decimal | None]], list[Rejected]]:
    """Each snapshot's usable prices ({valid_from: {item: price}}) and its rejected lines. A line must parse, be
    valid from its file's time, and its item must be on no other usable line of the snapshot: with another price
    none of them is usable (conflicting_record), with the same price the first line is (duplicate_record)."""
    snapshots, rejected = {}, []
    for path in files:
        valid_from, lines = _file_hour(path), file_lines(path.read_bytes())
        if not lines:
            rejected.append(Rejected(str(path), None, "empty_file"))
        usable: dict[str, list[tuple[int, Decimal]]] = defaultdict(list)
        for number, line in enumerate(lines, start=1):
            parsed = parse_line(line, PRICE_FIELDS, MAX_LINE_BYTES)
            if parsed.reason:
                rejected.append(Rejected(str(path), number, parsed.reason))
            elif parsed.values["valid_from"] != valid_from:
                rejected.append(Rejected(str(path), number, "bad_value:valid_from"))
            else:
                usable[parsed.values["item_id"]].append((number, parsed.values["price"]))
        snapshots[valid_from] = {}
        for item, copies in usable.items():
            if len({price for _, price in copies}) > 1:
                rejected += [Rejected(str(path), number, "conflicting_record:item_id") for number, _ in copies]
                continue
            snapshots[valid_from][item] = copies[0][1]
            rejected += [Rejected(str(path), number, "duplicate_record:item_id") for number, _ in copies[1:]]
    return snapshots, rejected


def priced(on_time: list[Event], snapshots: dict[datetime, dict[str, Decimal | None]]) -> dict[str, Decimal | None]:
    """{event_id: price}: the price of the event's item in the snapshot in force at its event time (the latest
    valid from at or before it), None when that snapshot gives no usable price for it, or there is none."""
    prices = {}
    for event in on_time:
        in_force = [t for t in snapshots if t <= event.event_time]
        prices[event.event_id] = snapshots[max(in_force)].get(event.item_id) if in_force else None
    return prices


def first_arrivals(events: list[Event], ttl: timedelta) -> list[Event]:
    """Flink's keep-first deduplication with a state TTL on arrival time: an event_id is kept when it was never kept,
    or when it was last kept at least `ttl` before this arrival hour; a dropped copy does not extend its life."""
    last_kept: dict[str, datetime] = {}
    kept = []
    for event in sorted(events, key=lambda e: (e.arrival_hour, e.arrival_time, e.source_file, e.line_number)):
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
