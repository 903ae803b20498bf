"""Defective landing lines, as producers send them, each with the reason the definition of a valid order event gives
it (None: a valid event, however odd it looks). test_scheduled_pipeline.py appends them to its landing files: the
13 lines of issue 24 to hour 0, wrong JSON types and line-level defects to hour 1 (plus a file of only bad lines and
an empty file), times to hour 2; price defects to the first snapshot.

A UTF-8 byte order mark at the very start of a file is the file's encoding mark: Spark's text source (Hadoop's
line reader) skips it, and the first line is read as it follows. One at the start of any other line is data: `bom`."""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

DROP = object()  # a key left out of the record
ONE_MB = 1024 * 1024


def _z(moment: datetime) -> str:
    return f"{moment:%Y-%m-%dT%H:%M:%S}Z"


def record(hour: datetime, n: int, **changes: Any) -> dict[str, Any]:
    """A valid order event of the arrival hour, timed inside it, with `changes` (DROP removes a key)."""
    base = {
        "event_id": f"evt_dirty_{hour:%H}_{n:02d}",
        "user_id": "user_00007",
        "item_id": "item_05",
        "quantity": 2,
        "event_time": _z(hour + timedelta(minutes=20, seconds=n)),
        "arrival_time": _z(hour + timedelta(minutes=21, seconds=n)),
    }
    base.update(changes)
    return {key: value for key, value in base.items() if value is not DROP}


def line(hour: datetime, n: int, **changes: Any) -> bytes:
    return json.dumps(record(hour, n, **changes)).encode()


def raw(hour: datetime, n: int, text: str) -> bytes:
    """A record written by hand: `text` replaces `"quantity": 2` (to write numbers json.dumps would not)."""
    return line(hour, n).replace(b'"quantity": 2', text.encode())


def issue_lines(hour: datetime) -> list[tuple[bytes, str | None]]:
    """The 13 lines of issue 24, appended to the first hour's file."""
    offset = (hour + timedelta(minutes=25)).replace(tzinfo=None) + timedelta(hours=5)
    return [
        (b"this is not json", "not_json"),
        (line(hour, 2)[:40], "truncated"),
        (line(hour, 3, quantity="three"), "bad_type:quantity"),
        (line(hour, 4, quantity=99999999999), "out_of_range:quantity"),
        (line(hour, 5, quantity=-3), "out_of_range:quantity"),
        (line(hour, 6, quantity=2.5), "bad_type:quantity"),
        (line(hour, 7, event_time="2026-13-45T99:00:00Z"), "bad_time:event_time"),
        (line(hour, 8, event_time=f"{offset:%Y-%m-%dT%H:%M:%S}+05:00"), None),  # 25 minutes into the hour, UTC
        (line(hour, 9, event_id=None), "null_key:event_id"),
        (line(hour, 10, item_id=DROP), "missing_field:item_id"),
        (line(hour, 11, coupon="SPRING", meta={"quantity": "x"}), None),  # unknown keys are ignored
        (b"", "empty_line"),
        (json.dumps([record(hour, 13)]).encode(), "not_object"),
    ]


def type_lines(hour: datetime) -> list[tuple[bytes, str | None]]:
    """Wrong JSON types for every field, numbers written every way, and line-level defects."""
    return [
        (line(hour, 1, event_id=42), "bad_type:event_id"),
        (line(hour, 2, user_id=True), "bad_type:user_id"),
        (line(hour, 3, item_id={"id": "item_01"}), "bad_type:item_id"),
        (line(hour, 4, quantity=[2]), "bad_type:quantity"),
        (line(hour, 5, quantity=None), "null_field:quantity"),
        (line(hour, 6, quantity="2"), "bad_type:quantity"),
        (line(hour, 7, quantity=True), "bad_type:quantity"),
        (line(hour, 8, quantity=0), "out_of_range:quantity"),
        (raw(hour, 9, '"quantity": 1e3'), None),  # 1000
        (raw(hour, 10, '"quantity": 2.0'), None),  # 2
        (raw(hour, 11, '"quantity": 1e400'), "out_of_range:quantity"),
        (raw(hour, 12, '"quantity": 1.0000000000000000000001'), "bad_type:quantity"),
        (raw(hour, 13, '"quantity": 2, "quantity": 3'), "duplicate_field:quantity"),
        (raw(hour, 14, '"Quantity": 2'), "missing_field:quantity"),
        (raw(hour, 15, '"quantity": NaN'), "not_json"),
        (line(hour, 16, event_id=""), "bad_value:event_id"),
        (line(hour, 17, user_id="user 7"), "bad_value:user_id"),
        (line(hour, 18).replace(b'"', b"'"), "not_json"),
        (line(hour, 19) + line(hour, 20), "not_json"),
        (b"  " + line(hour, 21) + b" \t", None),  # whitespace around the object
        (b"\xef\xbb\xbf" + line(hour, 22), "bom"),
        (line(hour, 23, user_id="user_caf\u00e9").replace(b"\\u00e9", b"\xe9"), "not_utf8"),  # Latin-1
        (line(hour, 24, quantity=7, event_time=None), None),  # an order without a time
    ]


def only_bad_lines(hour: datetime) -> list[tuple[bytes, str | None]]:
    """A file of nothing but bad lines (the first starts with UTF-16's byte order mark, the last has no line break)."""
    padded = record(hour, 31, note="x" * ONE_MB)
    return [
        (b"\xff\xfe" + line(hour, 30), "not_utf8"),
        (json.dumps(padded).encode(), "line_too_long"),
        (b"\xef\xbb\xbf" + line(hour, 32), "bom"),
        (b"   ", "empty_line"),
        (b'{"event_id": "evt_dirty_01_34", "quantity": [1, 2', "truncated"),
    ]


def time_lines(hour: datetime) -> list[tuple[bytes, str | None]]:
    """Times as producers write them. Valid: a zone other than UTC, no event time at all."""
    return [
        (line(hour, 1, event_time=f"{hour:%Y-%m-%d}T{hour:%H}:20:00"), "bad_time:event_time"),  # no zone
        (line(hour, 2, event_time=f"{hour:%Y-%m-%d}"), "bad_time:event_time"),  # a date only
        (line(hour, 3, event_time=f"{hour:%Y-%m-%d}T{hour:%H}:59:60Z"), "bad_time:event_time"),  # a leap second
        (line(hour, 4, event_time="0000-01-01T00:00:00Z"), "bad_time:event_time"),
        (line(hour, 5, event_time="9999-12-31T23:59:59Z"), "out_of_range:event_time"),
        (line(hour, 6, event_time=1762000000), "bad_type:event_time"),
        (line(hour, 7, event_time=f"{hour:%Y-%m-%d}T{hour:%H}:20:00.123456789Z"), "bad_time:event_time"),  # nanoseconds
        (line(hour, 8, arrival_time=DROP), "missing_field:arrival_time"),
        (line(hour, 9, arrival_time="yesterday"), "bad_time:arrival_time"),
        (line(hour, 10, event_time=DROP), None),  # no event time: listed, not windowed
        (line(hour, 11, event_time=f"{hour - timedelta(hours=3):%Y-%m-%dT%H}:30:15.5-03:00"), None),  # hh:30:15.5Z
    ]


def append(path: Path, lines: list[tuple[bytes, str | None]], ends: list[bytes] | None = None) -> None:
    """Appends the lines, each ended by \\n (or its entry in `ends`: \\r\\n, or b'' for a last line without one)."""
    ends = ends or [b"\n"] * len(lines)
    with path.open("ab") as landing:
        landing.write(b"".join(text + end for (text, _), end in zip(lines, ends)))


def price_defects(path: Path, valid_from: datetime) -> None:
    """The snapshot gets 50 more items (so that its 6 bad lines stay under the gate's 10%), an unreadable line, a
    second item_02 at another price (neither is used), an exact copy of item_03 (the first is used), a negative
    price, and an item_05 valid from another time."""
    lines = path.read_bytes().splitlines()
    by_item = {json.loads(text)["item_id"]: json.loads(text) for text in lines}
    more = [{"item_id": f"item_x{n:02d}", "price": "1.00", "valid_from": by_item["item_01"]["valid_from"]} for n in range(50)]
    defects = [
        b"price list continues below",
        json.dumps({**by_item["item_02"], "price": "99.99"}).encode(),
        next(text for text in lines if b'"item_03"' in text),
        json.dumps({**by_item["item_04"], "price": "-1.00"}).encode(),
        json.dumps({**by_item["item_05"], "valid_from": _z(valid_from + timedelta(hours=3))}).encode(),
    ]
    with path.open("ab") as snapshot:
        snapshot.write(b"".join(json.dumps(item).encode() + b"\n" for item in more))
        snapshot.write(b"".join(text + b"\n" for text in defects))
