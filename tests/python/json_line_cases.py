"""Generated JSON lines for parse_json_lines' property tests: valid lines written every way producers write them,
and every defect class the README lists, from a seed (the same lines every run). Each line is bytes without a line
break; json_line_rules.parse_line says what each one is.

A line is an object of the declared FIELDS (each present, absent, repeated, or null, in any order) and of unknown
keys (scalars, arrays, nested objects), written compact, json.dumps-style or with odd whitespace, with strings raw
or \\u-escaped; its values are drawn from what each type takes (bounds, exponents, trailing zeros, times in every
zone form) and from what it does not (wrong JSON types, numbers at and past the type's bounds, times off the calendar
or the clock). A share of the lines then gets a line-level defect: truncated, text after the value, the exact path's
own sentinel after the value, a byte order mark, bytes that are not UTF-8, a JSON value that is not an object, single
quotes, NaN, an empty or blank line, a line longer than the limit."""

from __future__ import annotations

import json
import random
import re
from typing import Any, Callable

MAX_LINE_BYTES = 600

FIELDS: dict[str, dict[str, Any]] = {
    "id": {"type": "string", "key": True, "pattern": "[a-z][a-z0-9_]{0,15}", "valid": lambda s: re.fullmatch(r"[a-z][a-z0-9_]{0,15}", s)},
    "label": {"type": "string", "required": False},
    "code": {"type": "varchar(4)", "required": False, "nullable": True},
    "flag": {"type": "boolean", "required": False},
    "tiny": {"type": "tinyint", "required": False},
    "small": {"type": "smallint", "required": False, "nullable": True, "min": -1000},
    "qty": {"type": "int", "min": 1},
    "big": {"type": "bigint", "required": False, "nullable": True, "numbers_as_text": True},
    "price": {"type": "decimal(7,2)", "required": False, "numbers_as_text": True, "min": 0},
    "whole": {"type": "decimal(5,0)", "required": False},
    "day": {"type": "date", "required": False, "max": "2099-12-31"},
    "at": {"type": "timestamp", "required": False, "nullable": True},
    "at_zoned": {"type": "timestamp", "require_zone": True, "min": "1970-01-01T00:00:00Z"},
    "wall": {"type": "timestamp_ntz", "required": False},
}
MACRO_FIELDS = {name: {k: v for k, v in spec.items() if k != "valid"} for name, spec in FIELDS.items()}

# Raw JSON number texts (written as they are), by what they are to a column.
WHOLE_NUMBERS = ["0", "-0", "1", "7", "42", "-5", "100", "1e2", "1E2", "1.0e1", "100.000", "2.0", "5e0", "1e+2", "10E-1",
                 "127", "-128", "128", "-129", "32767", "-32768", "32768", "2147483647", "-2147483648", "2147483648",
                 "9223372036854775807", "-9223372036854775808", "9223372036854775808", "12345678901234567890123",
                 "9.223372036854775807e18", "1e18", "1e19", "0e999999999999", "1e400"]
FRACTIONS = ["0.5", "1.5", "-2.25", "99.99", "100.01", "0.001", "0.0010e1", "2.50", "2.500", "12.345", "1e-1", "1e-400",
             "1.0000000000000000000000001", "99999.99", "100000.00", "-0.0", "3.14159", "1234567.8", "0.1e1", "7.10"]
INVALID_NUMBERS = ["01", "+1", "1.", ".5", "1e", "--1", "0x10", "NaN", "Infinity", "-Infinity", "1_000"]
DATES = ["2024-02-29", "2023-02-29", "2024-13-01", "2024-1-01", "0000-01-01", "0001-01-01", "9999-12-31", "1999-12-31",
         "2024-01-01T00:00:00", "20240101", "2024/01/01", "2100-01-01"]
TIMES = ["2024-01-01T10:00:00Z", "2024-01-01 10:00", "2024-01-01T10:00:00.123456+02:00", "2024-01-01T10:00:00.1234567Z",
         "2024-01-01T24:00:00Z", "2024-01-01T23:59:60Z", "2024-01-01T10:00:00+19:00", "2024-01-01T10:00:00+18:00",
         "2024-01-01t10:00:00z", "2024-01-01T10:00:00+0200", "2024-01-01T10:00:00", "2024-01-01", "0001-01-01T00:30:00+01:00",
         "9999-12-31T23:00:00-02:00", "1969-12-31T23:59:59Z", "1970-01-01T00:00:00Z", "2024-02-30T00:00:00Z",
         "2024-06-01T12:30:15.5-03:00", "2024-01-01T10:00Z", "2024-01-01T10:00:00.Z", "2024-01-01T1:00:00Z", " 2024-01-01T10:00:00Z"]
WORDS = ["ok", "a", "abc", "item_07", "x1", "Bad", "bad id", "", "é", "café", "日本", "😀", "tab\there", 'quote"d',
         "back\\slash", "new\nline", "123", "-5", "1e3", "true", "false", "null", "{", "}", "[1]", '":', "a,b:c",
         "parse_json_lines:end", "\u2028", "\ufffd", "x" * 40]


def _number(rng: random.Random) -> str:
    return rng.choice(WHOLE_NUMBERS if rng.random() < 0.6 else FRACTIONS)


def _valid_value(name: str, spec: dict[str, Any], rng: random.Random) -> Any:
    """A value the field takes (a Python value json.dumps writes, or a Raw number text): mostly as producers write
    it, one in eight written another way the type also takes (1e2 or 2.0 for an integer, 12.30 for a decimal)."""
    kind, odd = spec["type"], rng.random() < 0.125
    if name == "id":
        return rng.choice(["ok", "a1", "item_07", "z"]) + str(rng.randint(0, 999))
    if kind == "string":
        return rng.choice(["-5", "123", "true", "[1]", '"q"', "x" * 30]) if odd else rng.choice(["ok", "label", "café", "日本語", "a b", "", "tab\there", 'q"uote'])
    if kind.startswith("varchar"):
        return rng.choice(["ab", "abcd", "é", "", "1", "-"])
    if kind == "boolean":
        return rng.choice([True, False])
    if kind in ("tinyint", "smallint", "int", "bigint"):
        if spec.get("numbers_as_text") and rng.random() < 0.3:
            return rng.choice(["12", "-7", "9223372036854775807", "1e3"])
        return Raw(rng.choice(["1e2", "2.0", "100.000", "1E1"] if odd else ["1", "7", "42", "100", "127", "10", "999"]))
    if kind.startswith("decimal"):
        if spec.get("numbers_as_text") and rng.random() < 0.4:
            return rng.choice(["12.30", "0.5", "7", "99999.99", "1e2"])
        if kind == "decimal(7,2)":
            return Raw(rng.choice(["12.30", "3e1", "8.00", "1.0E1"] if odd else ["12.3", "0.5", "7", "99999.99", "1.25", "0"]))
        return Raw(rng.choice(["1e3", "10.0", "2.00"] if odd else ["7", "12345", "0", "-40"]))
    if kind == "date":
        return rng.choice(["2024-02-29", "1999-12-31", "2024-01-01"])
    if kind == "timestamp_ntz":
        return rng.choice(["2024-01-01 10:00:00", "2024-01-01T10:00", "2024-06-01 12:30:15.5", "2024-01-01"])
    if spec.get("require_zone"):
        return rng.choice(["2024-01-01T10:00:00Z", "2024-06-01T12:30:15.123456+02:00", "2024-01-01 10:00:00-05:00", "2024-01-01T10:00Z"])
    return rng.choice(["2024-01-01T10:00:00Z", "2024-01-01 10:00", "2024-06-01T12:30:15.5-03:00", "2024-01-01", "2024-01-01+02:00"])


def _any_value(rng: random.Random, depth: int = 0) -> Any:
    """Any JSON value: scalars of every kind, and at shallow depths arrays and objects."""
    draw = rng.random()
    if draw < 0.15:
        return Raw(_number(rng))
    if draw < 0.35:
        return rng.choice(WORDS)
    if draw < 0.45:
        return rng.choice([True, False, None])
    if draw < 0.6:
        return rng.choice(DATES + TIMES)
    if depth < 2 and draw < 0.8:
        return [_any_value(rng, depth + 1) for _ in range(rng.randint(0, 3))]
    if depth < 2:
        return {rng.choice(["a", "b", "id", "qty", "x y"]): _any_value(rng, depth + 1) for _ in range(rng.randint(0, 2))}
    return rng.randint(-3, 3)


class Raw(str):
    """A JSON number written exactly as this text."""


def _near_miss(spec: dict[str, Any], rng: random.Random) -> Any:
    """What looks like a value of the type and is not one, or holds more than Spark's own parse shows: a number
    written as a string, a string holding true, a number whose double is shorter than what was written."""
    kind = spec["type"]
    if kind in ("tinyint", "smallint", "int", "bigint"):
        return rng.choice(["7", "42", "-0", "1e2", Raw("-0"), Raw("7.0000000000000000001")])
    if kind.startswith("decimal"):
        return rng.choice([Raw("1.0000000000000001"), Raw("12.300000000000000001"), Raw("2.0E23"), Raw("99999.995"), "12.3x", "1.0000000000000001"])
    if kind == "boolean":
        return rng.choice(["true", "false", Raw("1"), Raw("0")])
    if kind in ("string",) or kind.startswith("varchar"):
        return rng.choice([Raw("7"), Raw("-5"), Raw("1e3"), True, False, [], [1], Raw("2.50")])
    return rng.choice([Raw("20240101"), True, ["2024-01-01"]])


def _defective_value(name: str, spec: dict[str, Any], rng: random.Random) -> Any:
    """JSON null, a near miss, any other JSON value, or a number, date or time the type may or may not take."""
    draw = rng.random()
    if draw < 0.15:
        return None
    if draw < 0.45:
        return _near_miss(spec, rng)
    if draw < 0.7 and spec["type"] not in ("string", "boolean") and not spec["type"].startswith("varchar"):
        if spec["type"] in ("date", "timestamp", "timestamp_ntz"):
            return rng.choice(DATES + TIMES)
        return Raw(rng.choice(WHOLE_NUMBERS + FRACTIONS + INVALID_NUMBERS))
    return _any_value(rng)
class Writer:
    """Writes a value as JSON text: strings raw or \\u-escaped, separators compact or spaced, odd whitespace."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        # compact (JSON.stringify, Jackson, Go) and json.dumps' ', '/': ' are how producers write; a few do otherwise
        self.style = rng.choices(["compact", "dumps", "spaced", "odd"], weights=[45, 45, 5, 5])[0]
        self.escape_all = rng.random() < 0.15

    def space(self) -> str:
        return {"compact": "", "dumps": "", "spaced": " ", "odd": self.rng.choice(["", " ", "  ", "\t", " \t "])}[self.style]

    def string(self, text: str, key: bool = False) -> str:
        escaped = json.dumps(text, ensure_ascii=self.escape_all or self.rng.random() < 0.1)
        if self.rng.random() < (0.003 if key else 0.05) and text and text[0] not in '"\\' and ord(text[0]) > 31:
            escaped = escaped[:1] + f"\\u{ord(text[0]):04x}" + escaped[2:]  # a letter escaped though it needs no escape
        return escaped

    def value(self, value: Any) -> str:
        if isinstance(value, Raw):
            return str(value)
        if isinstance(value, str):
            return self.string(value)
        if isinstance(value, (bool, type(None), int)):
            return json.dumps(value)
        if isinstance(value, list):
            return "[" + ("," + self.space()).join(self.value(item) for item in value) + "]"
        return self.object(list(value.items()))

    def object(self, pairs: list[tuple[str, Any]]) -> str:
        colon = ": " if self.style == "dumps" else self.space() + ":" + self.space()
        comma = ", " if self.style == "dumps" else self.space() + "," + self.space()
        body = comma.join(self.string(key, key=True) + colon + self.value(value) for key, value in pairs)
        return "{" + self.space() + body + self.space() + "}"


def _object_line(rng: random.Random) -> str:
    """An object: 40% valid (every field a value it takes, an optional one absent or JSON null now and then), 15%
    valid but for one near miss (the lines a fast path could wrongly pass), 35% with one to three fields
    absent, repeated or holding something else."""
    mode = rng.choices(["valid", "near_miss", "defective"], weights=[40, 25, 35])[0]
    defective = set(rng.sample(list(FIELDS), 1 if mode == "near_miss" else rng.randint(1, 3))) if mode != "valid" else set()
    pairs: list[tuple[str, Any]] = []
    for name, spec in FIELDS.items():
        if name not in defective:
            if not spec.get("required", True) and rng.random() < 0.1:
                continue  # an optional key absent
            pairs.append((name, None if spec.get("nullable") and rng.random() < 0.1 else _valid_value(name, spec, rng)))
            continue
        if mode == "near_miss":
            pairs.append((name, _near_miss(spec, rng)))
            continue
        draw = rng.random()
        if draw < 0.1:
            continue  # absent
        pairs.append((name, _defective_value(name, spec, rng)))
        if draw > 0.85:
            pairs.append((name, _valid_value(name, spec, rng)))  # the key twice
    for _ in range(rng.choice([0, 0, 0, 1, 2])):  # keys of no field: ignored
        pairs.append((rng.choice(["extra", "meta", "ID", "Qty", "tags", "note"]), _any_value(rng)))
    if rng.random() < 0.5:
        rng.shuffle(pairs)
    text = Writer(rng).object(pairs)
    return (rng.choice(["", " ", "\t"]) if rng.random() < 0.1 else "") + text + (rng.choice(["", " ", "\t "]) if rng.random() < 0.1 else "")


LINE_DEFECTS: list[Callable[[bytes, random.Random], bytes]] = [
    lambda line, rng: line[: rng.randint(1, max(1, len(line) - 1))],  # truncated (a partial write)
    lambda line, rng: line + rng.choice([b" x", b"}", b"]", b",", b' {"a":1}', b"{}", b" //", b"\t0"]),  # text after the value
    lambda line, rng: line + b',"parse_json_lines:end"]' + rng.choice([b"", b" ", b"}"]),  # the exact path's sentinel
    lambda line, rng: b"\xef\xbb\xbf" + line,  # a byte order mark
    lambda line, rng: line.replace(b'"', b'"\xe9', 1),  # Latin-1
    lambda line, rng: line.replace(b'"', b'"\x80', 1),  # a lone continuation byte
    lambda line, rng: line.replace(b'"', b'"\xed\xa0\x80', 1),  # a UTF-16 surrogate in UTF-8
    lambda line, rng: line.replace(b'"', b'"\xc0\xaf', 1),  # an overlong encoding
    lambda line, rng: line.replace(b'"', b'"\xf0\x9f\x98', 1),  # a 4-byte sequence cut short
    lambda line, rng: line.replace(b'"', b"'"),  # single quotes
    lambda line, rng: line.replace(b":", b":NaN,\"nan\":", 1) if b":" in line else line + b"NaN",
    lambda line, rng: b"[" + line + b"]",  # not an object
    lambda line, rng: rng.choice([b"3", b"-1.5", b'"text"', b"true", b"null", b"[]", b"[1, 2]"]),
    lambda line, rng: rng.choice([b"", b" ", b"\t", b"   \t "]),  # empty
    lambda line, rng: rng.choice([b"not json", b"{'id': 'x'}", b"{id: 1}", b"{", b"}", b"{}", b"{ }", b'{"id"}', b'{"id":}']),
    lambda line, rng: line[:-1] + b', "pad": "' + b"p" * MAX_LINE_BYTES + b'"}' if line.endswith(b"}") else line,  # too long
    lambda line, rng: line[:-1] + b',"c":/*x*/1}' if line.endswith(b"}") else line,  # a comment
]


def generate(count: int, seed: int = 20261127) -> list[bytes]:
    """`count` lines; about one in five has a line-level defect."""
    rng = random.Random(seed)
    lines = []
    for _ in range(count):
        line = _object_line(rng).encode()
        if rng.random() < 0.2:
            line = rng.choice(LINE_DEFECTS)(line, rng)
        lines.append(line.replace(b"\n", b" ").replace(b"\r", b" "))
    return lines

