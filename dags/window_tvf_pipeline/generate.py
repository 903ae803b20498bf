"""Seeded generator of raw landing files: order events (one JSON-lines file per arrival hour) and item price
snapshots (one file every few hours), with the defects real feeds have.

    python -m window_tvf_pipeline.generate --hours 6            # small (tests, demo)
    python -m window_tvf_pipeline.generate --hours 24 --large   # ~100x the events

By default the files go where the DAG reads them and start where its schedule starts: WINDOW_TVF_LANDING_DIR
(default <repo>/landing, wherever the command runs) and WINDOW_TVF_PIPELINE_START, the DAG's own settings.

Event time and arrival time differ: most events arrive within seconds or minutes (so a file holds events out of
order and events of the previous hour), some arrive hours later (late data), a few are delivered twice (exact
duplicates: the same line again in the same or the next file), a few carry no event time at all, and about one line
in 200 is not a valid event at all (a partial write, a quantity in words, a time without its zone, ...: the pipeline
quarantines them, docs/dirty_feeds.md).
"""

from __future__ import annotations

import argparse
import json
import random
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path

from window_tvf_pipeline.config import Settings
from window_tvf_pipeline.landing import (
    EVENTS,
    PRICES,
    SNAPSHOT_EVERY,
    event_file,
    parse_utc,
    price_file,
    required_snapshot,
)

ITEMS = [f"item_{n:02d}" for n in range(1, 13)]


@dataclass(frozen=True)
class Shape:
    """How many events and how defective the feed is; rates are fractions of all events."""

    users: int = 40
    events_per_hour: int = 400
    duplicate_rate: float = 0.02
    null_time_rate: float = 0.01
    late_rate: float = 0.06
    late_hours: tuple[float, float] = (1.0, 4.5)
    malformed_rate: float = 0.005


SMALL = Shape()
LARGE = Shape(users=2000, events_per_hour=40_000)


def _iso(ts: datetime) -> str:
    """'2026-11-01T06:03:31.260703Z' (isoformat is C code; strftime was a fifth of the generator's time)."""
    return ts.astimezone(timezone.utc).replace(tzinfo=None).isoformat(timespec="microseconds") + "Z"


def _arrival_delay(rng: random.Random, shape: Shape) -> timedelta:
    """Seconds for most events, minutes for some, hours for the late ones."""
    draw = rng.random()
    if draw < shape.late_rate:
        return timedelta(hours=rng.uniform(*shape.late_hours))
    if draw < shape.late_rate + 0.15:
        return timedelta(minutes=rng.uniform(2, 40))
    return timedelta(seconds=rng.uniform(0, 90))


def _user_event_times(rng: random.Random, start: datetime, end: datetime, per_user_hour: float) -> list[datetime]:
    """Bursty activity: short pauses inside a visit, long ones between visits, so sessions (and sessions that
    cross an hour boundary) occur naturally."""
    mean_pause = 3600.0 / per_user_hour
    times, t = [], start + timedelta(seconds=rng.uniform(0, mean_pause))
    while t < end:
        times.append(t)
        in_visit = rng.random() < 0.8
        pause = rng.uniform(5, 0.5 * mean_pause) if in_visit else rng.uniform(2 * mean_pause, 6 * mean_pause)
        t += timedelta(seconds=pause)
    return times


def generate_events(start: datetime, hours: int, shape: Shape, rng: random.Random) -> dict[datetime, list[str]]:
    """JSON lines by arrival hour; events arriving after the last hour are not written (not yet arrived)."""
    end = start + timedelta(hours=hours)
    per_user_hour = shape.events_per_hour / shape.users / 0.8
    files: dict[datetime, list[str]] = {start + timedelta(hours=h): [] for h in range(hours)}
    serial = 0
    for user in range(1, shape.users + 1):
        for event_time in _user_event_times(rng, start, end, per_user_hour):
            serial += 1
            arrival = event_time + _arrival_delay(rng, shape)
            if arrival >= end:
                continue
            item, quantity = rng.choice(ITEMS), rng.randint(1, 5)
            timed = "null" if rng.random() < shape.null_time_rate else f'"{_iso(event_time)}"'
            # json.dumps(record, separators=(",", ":")) of these ASCII values, written directly (3 times faster)
            line = (f'{{"event_id":"evt_{serial:09d}","user_id":"user_{user:05d}","item_id":"{item}",'
                    f'"quantity":{quantity},"event_time":{timed},"arrival_time":"{_iso(arrival)}"}}')
            hour = arrival.replace(minute=0, second=0, microsecond=0)
            files[hour].append(line)
            if rng.random() < shape.duplicate_rate:
                # A producer retry: the identical line again, in this file or the next one.
                retry_hour = hour + timedelta(hours=rng.randint(0, 1))
                files.get(retry_hour, files[hour]).append(line)
    for lines in files.values():
        rng.shuffle(lines)  # files are not sorted by event time
    return files


# What a producer writes now and then instead of a valid event (each variant is quarantined with its reason).
MALFORMED = [
    lambda record, line: line[: len(line) // 2],  # a partial write: truncated
    lambda record, line: line.replace(f'"quantity":{record["quantity"]}', '"quantity":"three"'),  # bad_type:quantity
    lambda record, line: line.replace(f'"quantity":{record["quantity"]}', '"quantity":2.5'),  # bad_type:quantity
    lambda record, line: line.replace(f'"quantity":{record["quantity"]}', '"quantity":-3'),  # out_of_range:quantity
    lambda record, line: line.replace(f',"item_id":"{record["item_id"]}"', ""),  # missing_field:item_id
    lambda record, line: line.replace('"arrival_time":"', '"arrival_time":"x'),  # bad_time:arrival_time
    lambda record, line: "order " + line,  # not_json
]


def add_malformed_lines(files: dict[datetime, list[str]], shape: Shape, seed: int) -> None:
    """About `malformed_rate` of each file's lines more, at random places, each a broken copy of a valid event
    with an event_id of its own (evt_bad_...), from a generator of their own: the valid events stay as they were."""
    rng = random.Random(f"{seed}-malformed")
    serial = 0
    for lines in files.values():
        valid = list(lines)
        for _ in range(sum(rng.random() < shape.malformed_rate for _ in valid)):
            serial += 1
            record = {**json.loads(rng.choice(valid)), "event_id": f"evt_bad_{serial:06d}"}
            line = json.dumps(record, separators=(",", ":"))
            lines.insert(rng.randint(0, len(lines)), rng.choice(MALFORMED)(record, line))


def generate_prices(start: datetime, hours: int, rng: random.Random) -> dict[datetime, list[str]]:
    """A full price list every SNAPSHOT_EVERY on the epoch's grid, valid from its snapshot time; a few prices change
    each time."""
    prices = {item: round(rng.uniform(2, 80), 2) for item in ITEMS}
    snapshots: dict[datetime, list[str]] = {}
    # On the grid the as-of join waits on (every SNAPSHOT_EVERY from the epoch), from the snapshot in force at start.
    snapshot_time = required_snapshot(start + timedelta(microseconds=1))
    while snapshot_time < start + timedelta(hours=hours):
        if snapshots:
            for item in rng.sample(ITEMS, 4):
                prices[item] = round(prices[item] * rng.uniform(0.85, 1.2), 2)
        snapshots[snapshot_time] = [
            json.dumps({"item_id": item, "price": f"{price:.2f}", "valid_from": _iso(snapshot_time)})
            for item, price in prices.items()
        ]
        snapshot_time += SNAPSHOT_EVERY
    return snapshots


def write_landing(landing_dir: Path, start: datetime, hours: int, shape: Shape = SMALL, seed: int = 7) -> int:
    """Writes every file (replacing earlier ones of the same name); returns the number of event lines."""
    rng = random.Random(seed)
    (landing_dir / EVENTS).mkdir(parents=True, exist_ok=True)
    (landing_dir / PRICES).mkdir(parents=True, exist_ok=True)
    written = 0
    events = generate_events(start, hours, shape, rng)
    add_malformed_lines(events, shape, seed)
    for hour, lines in events.items():
        event_file(landing_dir, hour).write_text("".join(line + "\n" for line in lines))
        written += len(lines)
    for snapshot_time, lines in generate_prices(start, hours, rng).items():
        price_file(landing_dir, snapshot_time).write_text("".join(line + "\n" for line in lines))
    return written


def main() -> None:
    settings = Settings.from_environment()
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--landing-dir", type=Path, default=settings.landing_dir,
                        help=f"default: the DAG's WINDOW_TVF_LANDING_DIR ({settings.landing_dir})")
    parser.add_argument("--start", type=parse_utc, default=settings.start,
                        help=f"the first arrival hour; default: the DAG's WINDOW_TVF_PIPELINE_START ({settings.start:%Y-%m-%dT%H:%M:%SZ})")
    parser.add_argument("--hours", type=int, default=6, help="arrival hours to write, one events file each")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--large", action="store_true", help=f"{LARGE.events_per_hour} events per hour")
    args = parser.parse_args()
    shape = LARGE if args.large else SMALL
    written = write_landing(args.landing_dir, args.start, args.hours, shape, args.seed)
    print(f"wrote {written} event lines in {args.hours} hourly files to {args.landing_dir / EVENTS}")


if __name__ == "__main__":
    main()
