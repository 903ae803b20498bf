"""The rules of window_tvf.parse_json_lines in plain Python, written from their definition (docs/landing_parser.md,
macros/parsing/_parsing.yml), not from the macro: Python's json module (exact numbers as Decimal), unicodedata and datetime decide. The
tests compare the macro, and the order pipeline's quarantine, with what this says.

A field is declared as in the macro: {'type': ..., 'required', 'nullable', 'key', 'min', 'max', 'numbers_as_text',
'require_zone'}, plus `valid` (a Python predicate standing for the macro's Java `pattern`) and `pattern_text`."""

from __future__ import annotations

import json
import re
import unicodedata
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from decimal import Decimal
from typing import Any

LINE_BREAK = re.compile(rb"\r\n|\n|\r")
JSON_NUMBER = re.compile(r"-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?")
INTEGER_BITS = {"tinyint": 7, "smallint": 15, "int": 31, "integer": 31, "bigint": 63}


def file_lines(data: bytes) -> list[bytes]:
    """A file's lines as Hadoop's line reader (Spark's text source) splits them: at \\n, \\r\\n or \\r; a break at
    the very end does not start another line; a UTF-8 byte order mark at the very start of the file is the file's
    encoding mark, not part of its first line."""
    lines = LINE_BREAK.split(data.removeprefix(b"\xef\xbb\xbf"))
    return lines[:-1] if lines[-1] == b"" else lines


@dataclass(frozen=True)
class Outcome:
    """A line's values (None for every field when rejected) and its reason codes in the macro's order."""

    values: dict[str, Any]
    reasons: list[str]

    @property
    def reason(self) -> str | None:
        return self.reasons[0] if self.reasons else None


class _Pairs(list):
    """An object's (key, value) pairs in order, duplicates kept."""


def _strict_json(text: str) -> Any:
    def no_constants(name: str) -> Any:
        raise ValueError(f"{name} is not JSON")

    return json.loads(
        text, parse_float=Decimal, parse_int=Decimal, parse_constant=no_constants, object_pairs_hook=_Pairs
    )


def _truncated(text: str) -> bool:
    """The line starts an object and ends inside it: in an unclosed string, or with more brackets opened than
    closed outside strings."""
    if not text.lstrip(" \t\r\n").startswith("{"):
        return False
    in_string, escaped, depth = False, False, 0
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "{[":
            depth += 1
        elif char in "}]":
            depth -= 1
    return in_string or depth > 0


def line_problem(line: bytes | None, max_line_bytes: int | None) -> tuple[str | None, Any]:
    """(reason, parsed top-level pairs): the line-level reason or None, and the object's pairs when there is none."""
    if line is None or line.strip(b" \t\r\n") == b"":
        return "empty_line", None
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError:
        return "not_utf8", None
    if max_line_bytes is not None and len(line) > max_line_bytes:
        return "line_too_long", None
    if text.startswith("\ufeff"):
        return "bom", None
    try:
        value = _strict_json(text)
    except (ValueError, RecursionError):
        return ("truncated" if _truncated(text) else "not_json"), None
    if not isinstance(value, _Pairs):
        return "not_object", None
    return None, value


def _number(value: Any, field: dict) -> Decimal | None:
    if isinstance(value, Decimal):
        return value
    if field.get("numbers_as_text") and isinstance(value, str) and JSON_NUMBER.fullmatch(value):
        return Decimal(value)
    return None


def _time(value: str, field: dict) -> tuple[str | None, Any]:
    """(problem, value): an ISO time on the calendar and the clock, as an instant (naive UTC) or a wall-clock time."""
    zone_part = r"(Z|[+-]\d{2}:\d{2})"
    time_part = r"[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,6}))?)?"
    kind = field["type"]
    if kind == "date":
        pattern = r"(\d{4})-(\d{2})-(\d{2})"
    elif kind == "timestamp_ntz":
        pattern = rf"(\d{{4}})-(\d{{2}})-(\d{{2}})(?:{time_part})?"
    elif field.get("require_zone"):
        pattern = rf"(\d{{4}})-(\d{{2}})-(\d{{2}}){time_part}{zone_part}"
    else:
        pattern = rf"(\d{{4}})-(\d{{2}})-(\d{{2}})(?:{time_part})?{zone_part}?"
    match = re.fullmatch(pattern, value, flags=re.ASCII)
    if not match:
        return "bad_time", None
    parts = list(match.groups()) + [None] * 8
    year, month, day = int(parts[0]), int(parts[1]), int(parts[2])
    try:
        if year < 1:
            raise ValueError("year 0")
        if kind == "date":
            return None, date(year, month, day)
        hour, minute, second = (int(p) if p else 0 for p in parts[3:6])
        micros = int((parts[6] or "0").ljust(6, "0"))
        wall = datetime(year, month, day, hour, minute, second, micros)
    except ValueError:
        return "bad_time", None
    zone = parts[7] if kind == "timestamp" else None
    if kind == "timestamp_ntz" or zone is None:
        return None, wall  # a zone-less timestamp is read in the session time zone: UTC in these tests
    offset = timedelta(0) if zone == "Z" else (1 if zone[0] == "+" else -1) * timedelta(hours=int(zone[1:3]), minutes=int(zone[4:6]))
    if abs(offset) > timedelta(hours=18) or int(zone[4:6] or 0) > 59:
        return "bad_time", None
    try:
        return None, wall - offset
    except OverflowError:
        return "out_of_range", None


def _bound(value: Any, field: dict) -> Any:
    if field["type"] in INTEGER_BITS or field["type"].startswith("decimal"):
        return Decimal(str(value))
    if field["type"] == "date":
        return date.fromisoformat(value)
    problem, parsed = _time(value, field)
    assert problem is None, value
    return parsed


def field_problem(occurrences: list[Any], field: dict) -> tuple[str | None, Any]:
    """(problem code or None, typed value) of one field from the values of its key in the object."""
    if len(occurrences) > 1:
        return "duplicate_field", None
    if not occurrences:
        return ("missing_field" if field.get("required", True) else None), None
    value = occurrences[0]
    if value is None:
        if field.get("key"):
            return "null_key", None
        return (None if field.get("nullable") else "null_field"), None
    kind = field["type"]
    if kind in ("string",) or kind.startswith("varchar"):
        if not isinstance(value, str):
            return "bad_type", None
        limit = int(kind[8:-1]) if kind.startswith("varchar") else None
        if limit is not None and len(value) > limit:
            return "bad_value", None
        if field.get("valid") and not field["valid"](value):
            return "bad_value", None
        return None, value
    if kind == "boolean":
        return (None, value) if isinstance(value, bool) else ("bad_type", None)
    if kind in INTEGER_BITS or kind.startswith("decimal"):
        number = _number(value, field)
        if number is None:
            return "bad_type", None
        if kind in INTEGER_BITS:
            if number != number.to_integral_value():
                return "bad_type", None
            bits = INTEGER_BITS[kind]
            if not -(2**bits) <= number <= 2**bits - 1:
                return "out_of_range", None
            typed: Any = int(number)
        else:
            precision, scale = (int(p) for p in kind[8:-1].split(","))
            if number != 0:
                sign, digits, exponent = number.normalize().as_tuple()
                if -exponent > scale:
                    return "bad_type", None
                if len(digits) + exponent > precision - scale:
                    return "out_of_range", None
            typed = number.quantize(Decimal(1).scaleb(-scale))
    else:
        if not isinstance(value, str):
            return "bad_type", None
        problem, typed = _time(value, field)
        if problem:
            return problem, None
        if kind != "date" and not datetime(1, 1, 1) <= typed <= datetime(9999, 12, 31, 23, 59, 59, 999999):
            return "out_of_range", None
    if "min" in field and typed < _bound(field["min"], field):
        return "out_of_range", None
    if "max" in field and typed > _bound(field["max"], field):
        return "out_of_range", None
    return None, typed


def parse_line(line: bytes | None, fields: dict[str, dict], max_line_bytes: int | None = 1048576) -> Outcome:
    problem, pairs = line_problem(line, max_line_bytes)
    if problem:
        return Outcome({name: None for name in fields}, [problem])
    reasons, values = [], {}
    for name, field in fields.items():
        code, value = field_problem([v for k, v in pairs if k == name], field)
        values[name] = value
        if code:
            reasons.append(f"{code}:{name}")
    return Outcome({name: None for name in fields} if reasons else values, reasons)


def identifier(text: str) -> bool:
    """The order pipeline's ids: 1 to 128 characters, none of them Java regex whitespace (\\s) or a Unicode
    separator (Z*) or control, format, private-use, surrogate or unassigned character (C*)."""
    return 1 <= len(text) <= 128 and all(
        char not in " \t\n\x0b\f\r" and unicodedata.category(char)[0] not in "ZC" for char in text
    )

