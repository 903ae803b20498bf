"""The rejection gate's task log line: how many landing lines it quarantined and why (issue 37). Quick: no Spark,
the gate's suite stubbed out; the counts come from a `Rejections` as the gate computes it."""

from __future__ import annotations

import logging

import pytest

from window_tvf_pipeline import quality
from window_tvf_pipeline.config import Settings
from window_tvf_pipeline.suites import Rejections

GROUP = "event lines that arrived in [2026-11-28 06:00, 07:00)"


def rejections(lines: int, rejected: int, top_reasons: str, share_without_lines: float = 0.0) -> Rejections:
    return Rejections(GROUP, lines, rejected, rejected / lines if lines else share_without_lines, top_reasons, "")


def test_the_line_counts_quarantined_lines_by_reason() -> None:
    group = rejections(480, 7, "bad_type:quantity 4, not_json 2, missing:event_time 1")
    assert quality.quarantine_line("order_events.rejection_gate", group, 0.1) == (
        "order_events.rejection_gate: 7 of 480 event lines that arrived in [2026-11-28 06:00, 07:00) quarantined "
        "(1.5%; the gate allows 10%), by reason: bad_type:quantity 4, not_json 2, missing:event_time 1."
    )


def test_reasons_beyond_the_top_ones_are_counted_together() -> None:
    group = rejections(1000, 20, "a 5, b 4, c 3, d 2, e 2")
    assert quality.quarantine_line("s", group, 0.1).endswith("by reason: a 5, b 4, c 3, d 2, e 2, other reasons 4.")


def test_clean_and_empty_groups() -> None:
    assert quality.quarantine_line("s", rejections(480, 0, ""), 0.1) == (
        f"s: 480 {GROUP}, none quarantined (the gate allows 10%)."
    )
    assert quality.quarantine_line("s", rejections(0, 0, ""), 0.1) == f"s: there are no {GROUP} (nothing to check)."
    assert quality.quarantine_line("s", rejections(0, 0, "", 1.0), 0.1) == (
        f"s: there are no {GROUP} (the gate fails that)."
    )


def test_the_gate_logs_the_line_before_it_checks(monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    monkeypatch.setattr(quality, "run_suites", lambda suites, run_name, settings: [suites[0].name])
    settings = Settings.from_environment({})
    group = rejections(480, 3, "not_json 3")
    with caplog.at_level(logging.INFO, logger=quality.log.name):
        assert quality._rejection_gate("order_events.rejection_gate", [group], "2026-11-28T06", settings) == [
            "order_events.rejection_gate"
        ]
    assert [r.getMessage() for r in caplog.records if r.name == quality.log.name] == [
        f"order_events.rejection_gate: 3 of 480 {GROUP} quarantined (0.6%; the gate allows 10%), by reason: not_json 3."
    ]
