"""The dbt project this pipeline runs: where it is, and its vars' defaults (dbt_project.yml: the one place they are
set, for dbt and for the DAG alike)."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

import yaml

REPO = Path(__file__).resolve().parents[2]


@cache
def _vars() -> dict[str, Any]:
    return yaml.safe_load((REPO / "dbt_project.yml").read_text())["vars"]


def project_var(name: str) -> Any:
    """A var's default in dbt_project.yml."""
    return _vars()[name]
