"""window_tvf.scheduled_var: a scheduler's per-run vars through the environment, so that a new data interval makes
dbt re-parse only the files that read it (with `--vars`, every interval re-parsed the whole project)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from dbt_harness import DbtRun, compile_error_line, compiled, run_dbt

INTERVALS = [("2026-11-01T06:00:00+00:00", "2026-11-01T07:00:00+00:00"),
             ("2026-11-01T07:00:00+00:00", "2026-11-01T08:00:00+00:00")]


def test_values_come_from_the_environment_as_json_else_from_var(monkeypatch: pytest.MonkeyPatch,
                                                                built: DbtRun) -> None:
    monkeypatch.setenv("WINDOW_TVF_VAR_LANDING_EVENT_FILES", json.dumps(["/landing/a b.jsonl", "/landing/c.jsonl"]))
    monkeypatch.setenv("WINDOW_TVF_VAR_DATA_INTERVAL_START", json.dumps(INTERVALS[0][0]))
    monkeypatch.setenv("WINDOW_TVF_VAR_ALLOWED_LATENESS", "null")  # null and empty: not passed, var() decides
    # (the interval's end too: the flagged window models need both bounds, or none, to parse)
    monkeypatch.setenv("WINDOW_TVF_VAR_DATA_INTERVAL_END", json.dumps(INTERVALS[0][1]))
    monkeypatch.setenv("WINDOW_TVF_VAR_NOT_A_PROJECT_VAR", "")
    monkeypatch.setenv("WINDOW_TVF_VAR_DEDUPLICATION_TTL", json.dumps("3 days"))
    sql = ("{{ window_tvf.scheduled_var('landing_event_files') | join('|') }};"
           "{{ window_tvf.scheduled_var('data_interval_start') }};"
           "{{ window_tvf.scheduled_var('allowed_lateness') }};"
           "{{ window_tvf.scheduled_var('data_interval_end') }};"
           "{{ window_tvf.scheduled_var('deduplication_ttl') }};"
           "{{ window_tvf.scheduled_var('max_landing_line_bytes') }};"
           "{{ window_tvf.scheduled_var('not_a_project_var', 'its default') }}")
    assert compiled(sql).split(";") == [
        "/landing/a b.jsonl|/landing/c.jsonl", INTERVALS[0][0], "2 hours", INTERVALS[0][1], "3 days", "65536", "its default"]


def test_a_value_that_is_not_json_fails_at_compile_time(monkeypatch: pytest.MonkeyPatch, built: DbtRun) -> None:
    """(dbt reports it from the first model that reads the variable when it re-parses them, with the same line.)"""
    monkeypatch.setenv("WINDOW_TVF_VAR_DATA_INTERVAL_START", "2026-11-01T06:00:00")
    assert compile_error_line("{{ window_tvf.scheduled_var('data_interval_start') }}") == (
        "window_tvf.scheduled_var: environment variable WINDOW_TVF_VAR_DATA_INTERVAL_START is 2026-11-01T06:00:00: "
        "it must hold the value of var('data_interval_start') as JSON (a string in double quotes)")
    monkeypatch.delenv("WINDOW_TVF_VAR_DATA_INTERVAL_START")
    assert compile_error_line("{{ window_tvf.scheduled_var(3) }}") == (
        "window_tvf.scheduled_var: argument 'name' got 3; expected the name of a dbt var")


def _parse(variables: dict[str, Any]) -> tuple[list[str], Any]:
    """`dbt parse` with the interval's vars passed as the DAG passes them: dbt's messages and the manifest."""
    from window_tvf_pipeline.dbt import scheduled_vars

    with scheduled_vars(variables):
        run = run_dbt(["parse"])
    assert run.success, run.messages
    return run.messages.splitlines(), run.result


def _where(manifest: Any, test_name: str) -> str:
    return next(node.config.where for node in manifest.nodes.values() if node.name == test_name)


def test_a_new_interval_reparses_only_the_files_that_read_it(built: DbtRun) -> None:
    """The DAG's way (window_tvf_pipeline.dbt.scheduled_vars): each interval changes the models' SQL and their tests'
    where clauses (rendered when dbt parses), and dbt says nothing of a full parse; the manifest shows the new
    interval. (A model's SQL is rendered again when it runs, so only the where clauses could go stale.)"""
    _parse({})  # from whatever an earlier test left (another test's --vars make this one a full parse)
    for start, end in INTERVALS:
        messages, manifest = _parse({"data_interval_start": start, "data_interval_end": end,
                                     "allowed_lateness": "30 minutes"})
        assert not [m for m in messages if "Unable to do partial parsing" in m], messages
        assert _where(manifest, "not_null_stg_order_events_source_file") == (
            f"arrival_hour >= timestamp'{start}' and arrival_hour < timestamp'{end}'")
        assert _where(manifest, "not_null_fct_item_sales_tumble_15m_window_start") == (
            f"window_date >= to_date(timestamp'{start}' - interval '30 minutes' - interval 1 millisecond)")
    # And back to no interval: the tests check every row again.
    messages, manifest = _parse({})
    assert not [m for m in messages if "Unable to do partial parsing" in m], messages
    assert _where(manifest, "not_null_stg_order_events_source_file") == "true"
