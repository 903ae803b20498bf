"""The docs site builds in strict mode: `mkdocs build --strict` (mkdocs.yml's validation settings) fails on a broken
link, a link to a file outside docs/, a missing anchor, an absolute link and a page that is not in the nav. Built
into a temporary directory, so `make docs`' site is left alone; no Spark, a few seconds. And a manual says what is
true now: no heading of README.md or a manual carries a date or "Earlier:" (measurements, dated, live in
docs/benchmarks/)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from dbt_harness import REPO


def test_the_docs_site_builds_in_strict_mode(tmp_path: Path) -> None:
    built = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--config-file", str(REPO / "mkdocs.yml"),
         "--site-dir", str(tmp_path / "site")],
        cwd=REPO, capture_output=True, text=True, timeout=300,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},  # mkdocs-material's end-of-life notice, not the docs' fault
    )
    warnings = "\n".join(line for line in built.stderr.splitlines() if line.startswith(("WARNING", "ERROR")))
    assert not warnings, f"mkdocs build --strict:\n{warnings}"
    assert built.returncode == 0, built.stderr[-3000:]
    assert (tmp_path / "site" / "index.html").exists()
    assert (tmp_path / "site" / "benchmarks" / "index.html").exists()


def test_no_manual_heading_carries_a_date() -> None:
    pages = [REPO / "README.md", *(page for page in (REPO / "docs").rglob("*.md")
                                   if "benchmarks" not in page.relative_to(REPO / "docs").parts)]
    dated = re.compile(r"^#+ .*(20[0-9]{2}-[0-9]{2}-[0-9]{2}|Earlier:)")
    found = [f"{page.relative_to(REPO)}:{number}: {line}" for page in pages
             for number, line in enumerate(page.read_text().splitlines(), start=1) if dated.match(line)]
    assert not found, "a dated heading in a manual (its measurements belong in docs/benchmarks/):\n" + "\n".join(found)
