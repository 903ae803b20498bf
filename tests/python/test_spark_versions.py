"""The oldest supported Spark gives the same rows: the window-semantics suites (documented examples, edge cases, the
DST comparison with Flink, window operations) run again on pyspark 3.5, in its own venv and subprocess (spark_versions.py; `make test-compat` runs more files, on 3.5 and 4.0).

The run starts when the main suite's `dbt build` is done (conftest.py) and goes on beside the rest of the main suite,
at a lower CPU priority; the test waits for its outcome."""

from __future__ import annotations

import subprocess

from spark_versions import OLDEST, Background, failures


def test_the_compat_venv_runs_the_oldest_supported_spark() -> None:
    python = OLDEST.venv / "bin" / "python"
    version = subprocess.run([str(python), "-c", "import pyspark; print(pyspark.__version__)"],
                             capture_output=True, text=True, check=True).stdout.strip()
    assert version == OLDEST.pyspark and version.startswith("3.5.")


def test_window_semantics_suites_pass_on_the_oldest_supported_spark(oldest_spark_run: Background) -> None:
    outcome = oldest_spark_run.result()
    assert outcome.passed, (f"on pyspark {OLDEST.pyspark}: {outcome.summary}\n{failures(outcome)}\n"
                            f"(whole output: {outcome.log})")
    assert " passed" in outcome.summary and "skipped" not in outcome.summary, outcome.summary
