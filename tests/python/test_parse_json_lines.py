"""window_tvf.text_file_lines and window_tvf.parse_json_lines on real files and real Spark, line for line against
json_line_rules (the rules in plain Python: Python's json and datetime decide), and their compile errors."""

from __future__ import annotations

import json
import re
from datetime import date, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from dbt_harness import TEST_DIR, DbtRun, compile_error_line, compiled
from json_line_rules import file_lines, parse_line

WORK = TEST_DIR / "parse_json_lines"
MAX_LINE_BYTES = 400

FIELDS: dict[str, dict[str, Any]] = {
    "id": {"type": "string", "key": True, "pattern": "[a-z][a-z0-9_]*", "valid": lambda s: re.fullmatch(r"[a-z][a-z0-9_]*", s)},
    "flag": {"type": "boolean", "required": False},
    "tiny": {"type": "tinyint", "required": False},
    "big": {"type": "bigint", "required": False, "nullable": True},
    "amount": {"type": "decimal(5,2)", "required": False, "numbers_as_text": True, "min": -100, "max": 100},
    "code": {"type": "varchar(3)", "required": False},
    "day": {"type": "date", "required": False, "min": "2000-01-01"},
    "at": {"type": "timestamp", "required": False},
    "at_zoned": {"type": "timestamp", "required": False, "require_zone": True, "max": "2099-12-31T23:59:59Z"},
    "wall": {"type": "timestamp_ntz", "required": False},
}
MACRO_FIELDS = {name: {k: v for k, v in spec.items() if k != "valid"} for name, spec in FIELDS.items()}


def _line(**values: Any) -> bytes:
    return json.dumps({"id": "ok", **values}).encode()


LINES = [
    _line(),
    # integers: the type's range, whole numbers written any way, nothing else
    _line(tiny=127), _line(tiny=-128), _line(tiny=128), _line(tiny=-129),
    b'{"id": "ok", "tiny": 1e2}', b'{"id": "ok", "tiny": 1.0e1}', b'{"id": "ok", "tiny": 100.000}', b'{"id": "ok", "tiny": -0}',
    b'{"id": "ok", "tiny": 1.5}', b'{"id": "ok", "tiny": 1e-1}', b'{"id": "ok", "tiny": "1"}', b'{"id": "ok", "tiny": true}',
    b'{"id": "ok", "tiny": [1]}', b'{"id": "ok", "tiny": {"v": 1}}', b'{"id": "ok", "tiny": null}',
    b'{"id": "ok", "tiny": 1.0000000000000000000000001}', b'{"id": "ok", "tiny": 1e400}', b'{"id": "ok", "tiny": 0e999999999999}',
    _line(big=9223372036854775807), _line(big=-9223372036854775808), _line(big=9223372036854775808),
    _line(big=-9223372036854775809), _line(big=None), b'{"id": "ok", "big": 12345678901234567890123}',
    b'{"id": "ok", "big": 9.223372036854775807e18}',
    # decimals: digits before and after the point, numbers as text, bounds
    b'{"id": "ok", "amount": 99.99}', b'{"id": "ok", "amount": 100}', b'{"id": "ok", "amount": 100.01}',
    b'{"id": "ok", "amount": -100.00}', b'{"id": "ok", "amount": 0.001}', b'{"id": "ok", "amount": 0.0010e1}',
    b'{"id": "ok", "amount": 1000}', b'{"id": "ok", "amount": "12.5"}', b'{"id": "ok", "amount": "1e1"}',
    b'{"id": "ok", "amount": "007"}', b'{"id": "ok", "amount": " 1"}', b'{"id": "ok", "amount": "abc"}',
    b'{"id": "ok", "amount": -0.0}', b'{"id": "ok", "amount": 2.50}',
    # strings
    _line(code="abc"), _line(code="abcd"), _line(code=""), _line(code="\u00e9\u00e9\u00e9"), _line(code=3),
    b'{"id": "ok", "code": "a\\"b"}', _line(id="Bad"), _line(id=7), _line(id=None), b'{"flag": true}',
    b'{"\\u0069d": "escaped_key"}', b'{"id": "a", "id": "b"}', b'{"id": "ok", "ID": "x", "extra": {"id": 3, "tiny": "x"}}',
    # booleans
    _line(flag=True), _line(flag=False), _line(flag="true"), _line(flag=1),
    # dates and times
    _line(day="2024-02-29"), _line(day="2023-02-29"), _line(day="1999-12-31"), _line(day="2024-1-01"),
    _line(day="2024-01-01T00:00:00"), _line(day="0000-01-01"), _line(day=20240101),
    _line(at="2024-01-01 10:00"), _line(at="2024-01-01T10:00:00.123456+02:00"), _line(at="2024-01-01"),
    _line(at="2024-01-01T10:00:00.1234567Z"), _line(at="2024-01-01T24:00:00Z"), _line(at="2024-01-01T10:00:00+19:00"),
    _line(at="2024-01-01T23:59:60Z"), _line(at="0001-01-01T00:30:00+01:00"), _line(at="9999-12-31T23:00:00-02:00"),
    _line(at="2024-13-01T00:00:00Z"), _line(at="2024-01-01t10:00:00z"), _line(at="2024-01-01T10:00:00+0200"),
    _line(at_zoned="2024-01-01T10:00:00+05:00"), _line(at_zoned="2024-01-01T10:00:00"), _line(at_zoned="2024-01-01"),
    _line(at_zoned="2100-01-01T00:00:00Z"), _line(wall="2024-01-01 10:00:00"), _line(wall="2024-01-01T10:00:00Z"),
    # several problems on one line
    _line(id=None, tiny=300, code="long", day="x"),
    # lines that are no JSON object
    b"", b"   \t", b"\xef\xbb\xbf" + _line(), b'{"id": "caf\xe9"}', b'{"id": "ok", "code": "\xed\xa0\x80"}',
    b'{"id": "ok", "pad": "' + b"x" * MAX_LINE_BYTES + b'"}', b"not json", b"{'id': 'ok'}", b'{"id": "ok", "tiny": NaN}',
    b'{"id": "ok", "tiny": 007}', b'{"id": "ok"} {"id": "ok"}', b'{"id": "ok"}]', b'{"id": "ok"},', b'{"id": "ok"',
    b'{"id": "ok", "code": "ab', b'{"id": "ok", "extra": [1, {"a": 2}', b'{"id": "ok"}}', b"[1, 2]", b"3", b'"text"',
    b"null", b"true", b"  " + _line(id="spaces_around") + b"\t ",
]


@pytest.fixture(scope="module")
def landed() -> list[Path]:
    """The lines in one file (line breaks \\n, \\r\\n and \\r, no break after the last line), and an empty file."""
    WORK.mkdir(parents=True, exist_ok=True)
    lines = WORK / "lines.jsonl"
    # a \r before an empty line would make one \r\n break of the two
    breaks = [b"\r" if n % 3 == 2 and LINES[n + 1] else b"\r\n" if n % 3 == 1 else b"\n" for n in range(len(LINES) - 1)]
    lines.write_bytes(b"".join(line + end for line, end in zip(LINES, breaks)) + LINES[-1])
    empty = WORK / "empty.jsonl"
    empty.write_bytes(b"")
    return [lines, empty]


def _parsed(spark: Any, paths: list[Path]) -> dict[tuple[str, int | None], Any]:
    fields = json.dumps(MACRO_FIELDS)
    sql = compiled(
        "with landed as ({{ window_tvf.text_file_lines(" + json.dumps([str(p) for p in paths]) + ") }}), "
        "parsed as ({{ window_tvf.parse_json_lines('landed', " + fields + ", max_line_bytes=" + str(MAX_LINE_BYTES) + ") }}) "
        "select * from parsed"
    )
    return {(row.source_file, row.line_number): row for row in spark.sql(sql).collect()}


def _reasons(message: str | None) -> list[str]:
    """The reason codes of a message: each problem starts with code:field (or a line-level code)."""
    return [re.match(r"[a-z0-9_]+(:[a-z0-9_]+)?", part).group(0) for part in message.split("; ")] if message else []


def test_each_line_is_parsed_or_rejected_as_the_rules_say(built: DbtRun, spark: Any, landed: list[Path]) -> None:
    """Every line of the file (and the empty file's row) against json_line_rules: the values of a valid line, and
    every reason of a rejected one, in order."""
    got = _parsed(spark, landed)
    lines, empty = landed
    expected = {(str(lines), n): parse_line(line, FIELDS, MAX_LINE_BYTES) for n, line in enumerate(file_lines(lines.read_bytes()), 1)}
    assert len(expected) == len(LINES)
    assert set(got) == set(expected) | {(str(empty), None)}
    assert got[(str(empty), None)].reason == "empty_line" and got[(str(empty), None)].line is None
    for key, outcome in expected.items():
        row = got[key]
        assert (row.reason, _reasons(row.reason_message)) == (outcome.reason, outcome.reasons), (key, row.line)
        assert {name: row[name] for name in FIELDS} == outcome.values, (key, row.line)


def test_values_are_exact_and_messages_name_field_and_value(built: DbtRun, spark: Any, landed: list[Path]) -> None:
    got = {row.line: row for row in _parsed(spark, landed[:1]).values() if row.line is not None}
    assert got['{"id": "ok", "tiny": 1e2}'].tiny == 100
    assert got['{"id": "ok", "amount": 0.0010e1}'].amount == Decimal("0.01")
    assert got['{"id": "ok", "amount": "1e1"}'].amount == Decimal("10.00")
    assert got['{"id": "ok", "big": 9.223372036854775807e18}'].big == 9223372036854775807
    assert got[json.dumps({"id": "ok", "at": "2024-01-01T10:00:00.123456+02:00"})].at == datetime(2024, 1, 1, 8, 0, 0, 123456)
    assert got[json.dumps({"id": "ok", "day": "2024-02-29"})].day == date(2024, 2, 29)
    assert got['{"id": "ok", "code": "a\\"b"}'].code == 'a"b'
    assert got['{"\\u0069d": "escaped_key"}'].id == "escaped_key"
    messages = {line: row.reason_message for line, row in got.items()}
    assert messages['{"id": "ok", "tiny": 1.5}'] == (
        "bad_type:tiny=1.5: tiny (tinyint) takes a JSON number: whole numbers from -128 to 127"
    )
    assert messages['{"id": "ok", "tiny": "1"}'] == (
        'bad_type:tiny="1": tiny (tinyint) takes a JSON number: whole numbers from -128 to 127'
    )
    assert messages['{"id": "ok", "amount": 1000}'] == (
        "out_of_range:amount=1000: amount (decimal(5,2)) takes a JSON number or a JSON string holding one: "
        "numbers with at most 3 digits before the point and 2 after it"
    )
    assert messages['{"id": "ok", "amount": 100.01}'] == "out_of_range:amount=100.01: amount must be at most 100"
    assert messages['{"id": "ok", "tiny": {"v": 1}}'].startswith('bad_type:tiny={"v":1}: ')
    assert messages[json.dumps({"id": None, "tiny": 300, "code": "long", "day": "x"})] == "; ".join([
        "null_key:id=null: id must not be null (it identifies the record)",
        "out_of_range:tiny=300: tiny (tinyint) takes a JSON number: whole numbers from -128 to 127",
        'bad_value:code="long": code (varchar(3)) takes a JSON string of at most 3 characters',
        "bad_time:day=\"x\": day (date) takes a JSON string holding a calendar date 'YYYY-MM-DD' (years 0001 to 9999)",
    ])
    assert messages['{"id": "a", "id": "b"}'] == "duplicate_field:id: the key id appears 2 times"
    assert messages['{"flag": true}'] == "missing_field:id: the object has no key id"
    assert messages["[1, 2]"] == "not_object: the line is a JSON array, not an object: [1, 2]"
    assert messages['{"id": "ok", "code": "ab'].startswith("truncated: the line ends inside its JSON object")


def test_line_numbers_follow_the_file_however_spark_splits_it(built: DbtRun, spark: Any, landed: list[Path]) -> None:
    sql = compiled("{{ window_tvf.text_file_lines(" + json.dumps([str(landed[0])]) + ") }}")
    whole = {row.line_number: row.line for row in spark.sql(sql).collect()}
    spark.conf.set("spark.sql.files.maxPartitionBytes", "512")
    try:
        splits = {row.line_number: row.line for row in spark.sql(sql).collect()}
        partitions = spark.sql(sql).rdd.getNumPartitions()
    finally:
        spark.conf.unset("spark.sql.files.maxPartitionBytes")
    assert splits == whole and sorted(whole) == list(range(1, len(LINES) + 1))
    assert partitions > 1


@pytest.mark.parametrize(
    ("call", "error"),
    [
        (
            "parse_json_lines('t', {'n': 'double'})",
            "window_tvf.parse_json_lines: argument 'fields' got {\"n\": \"double\"}; the types a JSON value is read into "
            "exactly are string, varchar(n), boolean, tinyint, smallint, int, bigint, decimal(p,s), date, timestamp and "
            "timestamp_ntz (not float or double: read the number into a decimal(p,s) that holds it, and cast)",
        ),
        (
            "parse_json_lines('t', {'n': {'type': 'tinyint', 'min': 200}})",
            "window_tvf.parse_json_lines: argument 'fields' got {\"n\": {\"min\": 200, \"type\": \"tinyint\"}}; min must be "
            "a value of the field's type (for numbers, dates and times; tinyint holds whole numbers from -128 to 127)",
        ),
        (
            "parse_json_lines('t', {'n': {'type': 'int', 'nulable': true}})",
            "window_tvf.parse_json_lines: argument 'fields' got {\"n\": {\"nulable\": true, \"type\": \"int\"}}; unknown "
            "option nulable; a field's options are type, required, nullable, key, min, max, pattern, numbers_as_text, "
            "require_zone",
        ),
        (
            "parse_json_lines('t', {'n': {'type': 'date', 'require_zone': true}})",
            "window_tvf.parse_json_lines: argument 'fields' got {\"n\": {\"require_zone\": true, \"type\": \"date\"}}; "
            "require_zone applies to timestamp fields",
        ),
        (
            "parse_json_lines('t', [])",
            "window_tvf.parse_json_lines: argument 'fields' got []; expected a {field: type} dict, each type a string or a "
            "dict of options, e.g. {'event_id': {'type': 'string', 'key': true}, 'quantity': {'type': 'int', 'min': 1}}",
        ),
        (
            "parse_json_lines(ref('typed_columns'), {'id': 'string'}, line_column='s')",
            "window_tvf.parse_json_lines: argument 'fields' got \"id\"; window_tvf.typed_columns already has a column named "
            "id, which the output would repeat; rename it first",
        ),
        (
            "file_name_time(['/landing/events/events_2026-11-01T7.jsonl'], '^events_([0-9T-]+)[.]jsonl$')",
            "window_tvf.file_name_time: argument 'paths' got \"/landing/events/events_2026-11-01T7.jsonl\"; the file's name must "
            "match ^events_([0-9T-]+)[.]jsonl$ with the time as %Y-%m-%dT%H (e.g. 2026-01-01T03) in its group; rename the "
            "file, or move it out of the files the model reads",
        ),
        (
            "file_name_time(['/landing/events_latest.jsonl'], var('landing_event_file_name'))",
            "window_tvf.file_name_time: argument 'paths' got \"/landing/events_latest.jsonl\"; the file's name must match "
            "^events_([0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2})(?:_[^/]*)?[.]jsonl$ with the time as %Y-%m-%dT%H (e.g. "
            "2026-01-01T03) in its group; rename the file, or move it out of the files the model reads",
        ),
        (
            "file_name_time(['/l/events_2026-02-30T01.jsonl'], 'events_(.*)[.]jsonl')",
            "window_tvf.file_name_time: argument 'paths' got \"/l/events_2026-02-30T01.jsonl\"; the file's name must match "
            "events_(.*)[.]jsonl with the time as %Y-%m-%dT%H (e.g. 2026-01-01T03) in its group; rename the file, or move "
            "it out of the files the model reads",
        ),
        (
            "file_name_time(['/l/a.jsonl'], 'no group')",
            "window_tvf.file_name_time: argument 'pattern' got \"no group\"; expected a regex with one group that holds "
            "the time, e.g. '^events_([0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2})(?:_[^/]*)?[.]jsonl$'",
        ),
    ],
    ids=["float-type", "bound-out-of-range", "unknown-option", "option-of-another-type", "not-a-dict", "repeated-column",
         "name-hour-one-digit", "name-without-hour", "name-off-the-calendar", "pattern-without-group"],
)
def test_bad_arguments_fail_at_compile_time(built: DbtRun, call: str, error: str) -> None:
    assert compile_error_line("{{ window_tvf." + call + " }}") == error


def test_file_name_time_reads_each_files_time_from_its_name(built: DbtRun, spark: Any) -> None:
    paths = ["/landing/events/events_2026-11-01T06.jsonl", "/landing/events/events_2026-11-01T23_part2.jsonl"]
    sql = compiled(
        "select source_file, {{ window_tvf.file_name_time(" + json.dumps(paths) + ", var('landing_event_file_name')) }} as hour "
        "from values " + ", ".join(f"('{p}')" for p in paths) + " as files (source_file)"
    )
    got = {row.source_file: row.hour for row in spark.sql(sql).collect()}
    assert got == {paths[0]: datetime(2026, 11, 1, 6), paths[1]: datetime(2026, 11, 1, 23)}
    assert "rlike" not in sql and "regexp" not in sql  # read when the model compiles, not on every row
