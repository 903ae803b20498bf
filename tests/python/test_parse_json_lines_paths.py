"""parse_json_lines' two paths give one verdict: on generated lines (json_line_cases: valid lines written every way,
every defect class), the macro as it runs (the fast path for the lines it can prove, the exact path for the rest)
against the exact path alone (the macro before the fast path, kept as the reference: fast_path=false), row for row,
reasons and messages included, and both against the plain-Python rules (json_line_rules). Runs on Spark 3.5 too
(spark_versions.py's lean suite)."""

from __future__ import annotations

import json
import re
from collections import Counter
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from dbt_harness import TEST_DIR, DbtRun, compiled
from json_line_cases import FIELDS, MACRO_FIELDS, MAX_LINE_BYTES, generate
from json_line_rules import file_lines, parse_line

WORK = TEST_DIR / "parse_json_lines_paths"
LINES = 4000


@pytest.fixture(scope="module")
def landed() -> Path:
    WORK.mkdir(parents=True, exist_ok=True)
    path = WORK / "generated.jsonl"
    path.write_bytes(b"\n".join(generate(LINES)) + b"\n")
    return path


# Times come back as text, read by datetime.fromisoformat: pyspark's own conversion fails on 0001-01-01 00:00 UTC.
TIMES = [name for name, spec in FIELDS.items() if spec["type"].startswith("timestamp")]


def _rows(spark: Any, path: Path, fast_path: bool) -> dict[int, dict[str, Any]]:
    sql = compiled(
        "with landed as ({{ window_tvf.text_file_lines(" + json.dumps([str(path)]) + ") }}), "
        "parsed as ({{ window_tvf._parse_json_lines('landed', " + json.dumps(MACRO_FIELDS)
        + f", max_line_bytes={MAX_LINE_BYTES}, fast_path={str(fast_path).lower()}, path_column='parse_path') }}}}) "
        "select * " + "".join(f", cast({name} as string) as {name}_text" for name in TIMES) + " from parsed"
    )
    rows = {}
    for row in spark.sql(sql).drop(*TIMES).collect():
        values = row.asDict()
        for name in TIMES:
            text = values.pop(f"{name}_text")
            values[name] = None if text is None else datetime.fromisoformat(text)
        rows[row.line_number] = values
    return rows


@pytest.fixture(scope="module")
def both_paths(built: DbtRun, spark: Any, landed: Path) -> tuple[dict[int, dict], dict[int, dict]]:
    return _rows(spark, landed, fast_path=True), _rows(spark, landed, fast_path=False)


def _reasons(message: str | None) -> list[str]:
    return [re.match(r"[a-z0-9_]+(:[a-z0-9_]+)?", part).group(0) for part in message.split("; ")] if message else []


def test_the_fast_path_gives_the_exact_paths_rows(both_paths: tuple[dict[int, dict], dict[int, dict]]) -> None:
    """Every output column of every line, fast path or not, equals the exact path's."""
    fast, exact = both_paths
    assert sorted(fast) == sorted(exact) == list(range(1, LINES + 1))
    columns = [*FIELDS, "reason", "reason_message"]
    differing = [(n, fast[n]["line"], fast[n]["parse_path"], {c: (fast[n][c], exact[n][c]) for c in columns if fast[n][c] != exact[n][c]})
                 for n in fast if any(fast[n][c] != exact[n][c] for c in columns)]
    assert not differing, f"{len(differing)} lines differ, e.g. {differing[:3]}"
    assert {row["parse_path"] for row in exact.values()} == {"exact"}


def test_both_paths_follow_the_rules(both_paths: tuple[dict[int, dict], dict[int, dict]], landed: Path) -> None:
    """Values and reason codes as the plain-Python rules give them, for every generated line."""
    fast, _ = both_paths
    expected = {n: parse_line(line, FIELDS, MAX_LINE_BYTES) for n, line in enumerate(file_lines(landed.read_bytes()), 1)}
    wrong = []
    for n, outcome in expected.items():
        row = fast[n]
        got = ((row["reason"], _reasons(row["reason_message"])), {name: row[name] for name in FIELDS})
        if got != ((outcome.reason, outcome.reasons), outcome.values):
            wrong.append((n, row["line"], row["parse_path"], got, (outcome.reasons, outcome.values)))
    assert not wrong, f"{len(wrong)} lines against the rules, e.g. {wrong[:3]}"


def test_the_generated_lines_cover_every_reason_and_both_paths(both_paths: tuple[dict[int, dict], dict[int, dict]]) -> None:
    """The set is worth comparing: every line-level code and every field code occurs; hundreds of valid lines take
    the fast path, among them lines written in each way it reads (spaced separators, unknown keys, JSON null in a
    nullable field, escapes, numbers written as text, tabs), and valid lines it leaves to the exact path too (nested
    values, 1e2 for an integer). How many lines of a real feed take each path: docs/landing_parser.md."""
    fast, _ = both_paths
    codes = Counter(code.split(":")[0] for row in fast.values() for code in _reasons(row["reason_message"]))
    line_codes = {"empty_line", "not_utf8", "line_too_long", "bom", "truncated", "not_json", "not_object"}
    field_codes = {"duplicate_field", "missing_field", "null_key", "null_field", "bad_type", "bad_value", "bad_time", "out_of_range"}
    assert line_codes | field_codes <= set(codes), codes
    valid = [row for row in fast.values() if row["reason"] is None]
    on_fast = [row for row in valid if row["parse_path"] == "fast"]
    assert len(on_fast) > 300 and len(valid) - len(on_fast) > 300, (len(valid), len(on_fast))
    assert all(row["parse_path"] == "exact" for row in fast.values() if row["reason"] is not None)
    for written in ['": ', '\\u', '"extra"', '"big": "', '"at": null', "\t"]:
        assert any(written in row["line"] for row in on_fast), written
