"""The oldest supported Spark gives the same rows, on Iceberg tables: the window-semantics suites (documented
examples, edge cases, the DST comparison with Flink, window operations) run again on pyspark 3.5 with every table of
their build an Iceberg table (Iceberg 1.10.1's runtime for Spark 3.5, fetched from Maven Central by `make test`), in
its own venv and subprocess (spark_versions.py IN_MAKE_TEST; `make test-compat` runs more files on parquet, on 3.5 and
4.0, and `make test-formats` every suite on Delta Lake and Iceberg).

The run starts when the main suite's `dbt build` is done (conftest.py) and goes on beside the rest of the main suite,
at a lower CPU priority; the test waits for its outcome."""

from __future__ import annotations

import subprocess

from spark_versions import IN_MAKE_TEST, OLDEST, Background, failures


def test_the_compat_venv_runs_the_oldest_supported_spark() -> None:
    python = OLDEST.venv / "bin" / "python"
    version = subprocess.run([str(python), "-c", "import pyspark; print(pyspark.__version__)"],
                             capture_output=True, text=True, check=True).stdout.strip()
    assert version == OLDEST.pyspark and version.startswith("3.5.")
    assert IN_MAKE_TEST.venv == OLDEST.venv and IN_MAKE_TEST.table_format == "iceberg"
    jars = [jar.name for jar in IN_MAKE_TEST.jars.glob("*.jar")]
    assert len(jars) == 1 and jars[0].startswith("iceberg-spark-runtime-3.5_2.12-"), (
        f"{IN_MAKE_TEST.jars}: `make test` fetches Iceberg's runtime for Spark 3.5 there (spark_conf/table_formats/pom.xml)")


def test_window_semantics_suites_pass_on_the_oldest_supported_spark(oldest_spark_run: Background) -> None:
    outcome = oldest_spark_run.result()
    assert outcome.passed, (f"on pyspark {OLDEST.pyspark} with Iceberg tables: {outcome.summary}\n{failures(outcome)}\n"
                            f"(whole output: {outcome.log})")
    assert " passed" in outcome.summary and "skipped" not in outcome.summary, outcome.summary
