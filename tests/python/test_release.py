"""What a user pins and installs agrees everywhere it is written: the release's version (dbt_project.yml, the
changelog's newest release, the README's `revision:`), the README's `pip install` and the project's own pins, and the
dbt range it declares with the dbt versions its tests run."""

from __future__ import annotations

import re

import yaml

from dbt_harness import REPO

README = (REPO / "README.md").read_text()


def _pins(path: str) -> dict[str, str]:
    """name (extras left out, lower case) -> version, of a requirements file's `name==version` lines."""
    pins = {}
    for line in (REPO / path).read_text().splitlines():
        found = re.match(r"^([A-Za-z0-9_.-]+)(?:\[[^\]]*\])?==(\S+)", line.strip())
        if found:
            pins[found.group(1).lower()] = found.group(2)
    return pins


def test_the_version_is_the_same_in_the_project_the_changelog_and_the_readme() -> None:
    version = yaml.safe_load((REPO / "dbt_project.yml").read_text())["version"]
    assert re.fullmatch(r"\d+\.\d+\.\d+", version), "semantic versioning: MAJOR.MINOR.PATCH"
    releases = re.findall(r"^## \[(\d+\.\d+\.\d+)\] - (\d{4}-\d{2}-\d{2})$", (REPO / "CHANGELOG.md").read_text(), re.M)
    assert releases and releases[0][0] == version, "the changelog's newest release is the project's version"
    assert re.findall(r'revision: "([^"]+)"', README) == [version], "the README pins the release it documents"


def test_the_readme_installs_the_versions_the_project_is_tested_with() -> None:
    command = next(line for line in README.splitlines() if line.startswith("pip install "))
    readme = {name.lower(): version for name, version in re.findall(r'"([A-Za-z0-9_.-]+)(?:\[[^\]]*\])?==([^"]+)"', command)}
    assert set(readme) == {"dbt-core", "dbt-core-experimental-parser", "dbt-spark", "pyspark"}
    assert readme == {name: _pins("requirements.in")[name] for name in readme}


def test_the_dbt_range_declared_is_the_range_tested() -> None:
    """require-dbt-version's floor runs in make test-compat (Spark 4.0), its newest in make test."""
    declared = yaml.safe_load((REPO / "dbt_project.yml").read_text())["require-dbt-version"]
    floor = re.fullmatch(r">=(\d+\.\d+)\.0", declared[0]).group(1)
    assert _pins("requirements-spark40.in")["dbt-core"].startswith(floor + ".")
    newest = _pins("requirements.in")["dbt-core"]
    assert declared[1] == f"<{int(newest.split('.')[0]) + 1}.0.0"
    row = next(line for line in README.splitlines() if line.startswith("| dbt-core |"))
    assert f"{floor} to {'.'.join(newest.split('.')[:2])}" in row
    assert f"({newest})" in row and f"({_pins('requirements-spark40.in')['dbt-core']} with Spark 4.0)" in row
