"""The landing folder's layout: which raw files belong to a data interval.

    <landing>/events/events_<YYYY-MM-DDTHH>[_<anything>].jsonl   one or more files per arrival hour
    <landing>/prices/prices_<YYYY-MM-DDTHH>.jsonl                 a full price list, valid from that hour

A producer may add part files for an hour (`events_2026-01-01T03_part2.jsonl`); all of them are that hour's.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

EVENTS = "events"
PRICES = "prices"
SNAPSHOT_EVERY = timedelta(hours=3)
_HOUR_FORMAT = "%Y-%m-%dT%H"


def parse_utc(text: str) -> datetime:
    """An ISO 8601 time; a time without a zone is taken as UTC."""
    parsed = datetime.fromisoformat(text.replace("Z", "+00:00"))
    return parsed.replace(tzinfo=parsed.tzinfo or timezone.utc).astimezone(timezone.utc)


def event_file(landing_dir: Path, hour: datetime) -> Path:
    return landing_dir / EVENTS / f"events_{hour:{_HOUR_FORMAT}}.jsonl"


def price_file(landing_dir: Path, valid_from: datetime) -> Path:
    return landing_dir / PRICES / f"prices_{valid_from:{_HOUR_FORMAT}}.jsonl"


def _file_hour(path: Path) -> datetime:
    stamp = path.stem.split("_")[1]
    return datetime.strptime(stamp, _HOUR_FORMAT).replace(tzinfo=timezone.utc)


def event_files(landing_dir: Path, start: datetime, end: datetime) -> list[Path]:
    """Every events file whose arrival hour lies in [start, end)."""
    return sorted(p for p in (landing_dir / EVENTS).glob("events_*.jsonl") if start <= _file_hour(p) < end)


def price_files(landing_dir: Path, since: datetime, end: datetime) -> list[Path]:
    """The price snapshots that events timed in [since, end) can need: the one in force at `since` (the latest
    valid from at or before it) and every later one valid from before `end`."""
    landed = sorted((p for p in (landing_dir / PRICES).glob("prices_*.jsonl") if _file_hour(p) < end), key=_file_hour)
    in_force = [p for p in landed if _file_hour(p) <= since][-1:]
    return in_force + [p for p in landed if _file_hour(p) > since]


def snapshot_time(path: Path) -> datetime:
    """When a price snapshot file's prices become valid."""
    return _file_hour(path)


def required_snapshot(end: datetime) -> datetime:
    """The snapshot in force at the interval's last instant: the join must not run before it has landed."""
    # A plain datetime: Airflow passes pendulum's, whose differences do not support `%`.
    end = datetime.fromisoformat(end.astimezone(timezone.utc).isoformat())
    last_instant = end - timedelta(microseconds=1)
    epoch = datetime(1970, 1, 1, tzinfo=timezone.utc)
    return last_instant - (last_instant - epoch) % SNAPSHOT_EVERY
