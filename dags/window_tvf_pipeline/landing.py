"""The landing folder's layout: which raw files belong to a data interval.

    <landing>/events/events_<YYYY-MM-DDTHH>[_<anything>].jsonl   one or more files per arrival hour
    <landing>/prices/prices_<YYYY-MM-DDTHH>.jsonl                 a full price list, valid from that hour

A producer may add part files for an hour (`events_2026-01-01T03_part2.jsonl`); all of them are that hour's. The
names' regexes are the dbt vars landing_event_file_name and landing_price_file_name, which the staging models read
the hour with too. A .jsonl file in either folder whose name has no hour in that form belongs to no interval: every
run stops, naming it, until it is renamed or moved away (it cannot be read without its hour, and must not be lost).
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone
from pathlib import Path

from window_tvf_pipeline.project import project_var

EVENTS = "events"
PRICES = "prices"
SNAPSHOT_EVERY = timedelta(hours=3)
_HOUR_FORMAT = "%Y-%m-%dT%H"
_NAMES = {EVENTS: "landing_event_file_name", PRICES: "landing_price_file_name"}


class MisnamedLandingFile(ValueError):
    """A landing file whose name has no hour in the expected form."""


def parse_utc(text: str) -> datetime:
    """An ISO 8601 time; a time without a zone is taken as UTC."""
    parsed = datetime.fromisoformat(text.replace("Z", "+00:00"))
    return parsed.replace(tzinfo=parsed.tzinfo or timezone.utc).astimezone(timezone.utc)


def event_file(landing_dir: Path, hour: datetime) -> Path:
    return landing_dir / EVENTS / f"events_{hour:{_HOUR_FORMAT}}.jsonl"


def price_file(landing_dir: Path, valid_from: datetime) -> Path:
    return landing_dir / PRICES / f"prices_{valid_from:{_HOUR_FORMAT}}.jsonl"


def _file_hour(path: Path) -> datetime:
    folder = path.parent.name
    found = re.match(project_var(_NAMES[folder]), path.name)
    try:
        return datetime.strptime(found.group(1), _HOUR_FORMAT).replace(tzinfo=timezone.utc)  # type: ignore[union-attr]
    except (AttributeError, ValueError):
        raise MisnamedLandingFile(
            f"landing file {path}: its name must match {project_var(_NAMES[folder])} (for example "
            f"{folder}_2026-01-01T03.jsonl), with the hour it arrived in; rename it, or move it out of {path.parent}"
        ) from None


def _landed(landing_dir: Path, folder: str) -> list[Path]:
    """The folder's .jsonl files (others, such as a producer's file still being written under another suffix, are
    not landed yet), each with its hour; a file whose name has none stops the run, naming it."""
    files = sorted((landing_dir / folder).glob("*.jsonl"))
    for path in files:
        _file_hour(path)
    return files


def event_files(landing_dir: Path, start: datetime, end: datetime) -> list[Path]:
    """Every events file whose arrival hour lies in [start, end)."""
    return [p for p in _landed(landing_dir, EVENTS) if start <= _file_hour(p) < end]


def price_files(landing_dir: Path, since: datetime, end: datetime) -> list[Path]:
    """The price snapshots that events timed in [since, end) can need: the one in force at `since` (the latest
    valid from at or before it) and every later one valid from before `end`."""
    landed = sorted((p for p in _landed(landing_dir, PRICES) if _file_hour(p) < end), key=_file_hour)
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
