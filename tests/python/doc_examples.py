"""Every SQL example of README.md and docs/, read from the markdown as a user copies it.

A fenced block whose info string is `sql` (or `jinja`) is an example: by default one whole dbt model. Its name is the
file its first line names (`-- models/fct_bids_10m.sql` -> fct_bids_10m), else `<page>_<n>` (the n-th example of the
page). An HTML comment on the line before a fence (invisible on the rendered page) says what else a block is:

    <!-- fragment: MODEL -->    not a model: a part of MODEL (an example's name, or a model of the example project
                                under models/), whose text must hold it (whitespace aside)
    <!-- prelude -->            not a model: CTEs that every later example of the page starts with (its `with` list
                                comes first; an example's own `with` continues that list)
    <!-- setup: PATH -->        a yaml or csv block that the examples need, in the user's project at PATH
                                (dbt_project.yml, profiles.yml, packages.yml, models/*.yml, seeds/*.csv)
    <!-- rows -->               before a markdown table: the rows the page's previous example gives

Blocks of any other language (bash, text, yaml and csv without `setup:`) are not examples.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from dbt_harness import REPO

EXAMPLE_LANGUAGES = {"sql", "jinja"}
MARKER = re.compile(r"^<!--\s*(fragment|prelude|setup|rows)\s*(?::\s*(\S+))?\s*-->$")
MODEL_PATH = re.compile(r"^--\s*(models/\S+?\.sql)\b")
# What may stand before a model's own `with`: whitespace, SQL comments, Jinja comments, statements and expressions.
LEADING = re.compile(r"(?is)^((?:\s|--[^\n]*\n|\{#.*?#\}|\{%.*?%\}|\{\{.*?\}\})*)")


def documentation_pages() -> list[Path]:
    """README.md and every page under docs/, in a stable order."""
    return [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]


@dataclass
class Rows:
    """A markdown table of the rows an example gives: its header and its cells, as text."""

    columns: list[str]
    rows: list[tuple[str, ...]]
    line: int


@dataclass
class Example:
    page: Path
    line: int  # of the opening fence, 1-based
    language: str
    text: str
    kind: str  # model, fragment, prelude, setup
    target: str | None = None  # fragment: the model it is part of; setup: the file
    name: str | None = None  # model: the model's name
    preludes: list[str] = field(default_factory=list)  # model: the page's preludes before it
    rows: list[Rows] = field(default_factory=list)  # model: the tables of its rows

    @property
    def where(self) -> str:
        return f"{self.page.relative_to(REPO)}:{self.line}"

    @property
    def sql(self) -> str:
        """The model's SQL as the user's project holds it: the page's preludes, then the example. A prelude of
        Jinja statements (`{% set ... %}`) comes first as it is; a prelude's `with` list comes next, and an example's
        own `with` list continues it."""
        statements, ctes = [], []
        for prelude in self.preludes:
            found = LEADING.match(prelude)
            statements.append(found.group(1))
            rest = prelude[found.end():].strip()
            if rest:
                ctes.append(re.sub(r"(?is)^with\s+", "", rest))
        if not ctes:
            return "".join(statements) + self.text
        own = re.match(LEADING.pattern + r"with\s+", self.text)
        if own:
            return f"{''.join(statements)}{own.group(1)}with {', '.join(ctes)},\n{self.text[own.end():]}"
        return f"{''.join(statements)}with {', '.join(ctes)}\n{self.text}"


def _slug(page: Path) -> str:
    return "readme" if page.name == "README.md" else re.sub(r"\W+", "_", page.stem).strip("_").lower()


def _table(lines: list[str], start: int) -> Rows:
    table = []
    for line in lines[start:]:
        if not line.startswith("|"):
            break
        table.append([cell.strip().strip("`") for cell in line.strip().strip("|").split("|")])
    return Rows(columns=table[0], rows=[tuple(row) for row in table[2:]], line=start + 1)


def page_examples(page: Path) -> list[Example]:
    """The examples of one page, in order, with their markers applied."""
    lines = page.read_text().splitlines()
    examples: list[Example] = []
    preludes: list[str] = []
    last_model: Example | None = None
    number = 0
    i = 0
    while i < len(lines):
        line = lines[i]
        marker = MARKER.match(lines[i - 1].strip()) if i else None
        if line.startswith("|") and marker and marker.group(1) == "rows":
            if last_model is None:
                raise ValueError(f"{page.relative_to(REPO)}:{i + 1}: <!-- rows --> before any example")
            last_model.rows.append(_table(lines, i))
        fence = re.match(r"^```(\S*)", line)
        if not fence:
            i += 1
            continue
        end = next(j for j in range(i + 1, len(lines)) if lines[j].startswith("```"))
        language, text = fence.group(1).lower(), "\n".join(lines[i + 1:end]) + "\n"
        kind, target = (marker.group(1), marker.group(2)) if marker else ("model", None)
        if kind == "setup":
            examples.append(Example(page, i + 1, language, text, "setup", target))
        elif language in EXAMPLE_LANGUAGES:
            if kind == "prelude":
                preludes.append(text)
                examples.append(Example(page, i + 1, language, text, "prelude"))
            elif kind == "fragment":
                examples.append(Example(page, i + 1, language, text, "fragment", target))
            else:
                number += 1
                path = MODEL_PATH.match(text)
                name = Path(path.group(1)).stem if path else f"{_slug(page)}_{number}"
                last_model = Example(page, i + 1, language, text, "model", name=name, preludes=list(preludes))
                examples.append(last_model)
        elif kind not in ("model", "setup"):
            raise ValueError(f"{page.relative_to(REPO)}:{i + 1}: <!-- {kind} --> before a ```{language} block")
        i = end + 1
    return examples


def all_examples() -> list[Example]:
    """The examples of every page; fails on two models of the same name."""
    examples = [example for page in documentation_pages() for example in page_examples(page)]
    seen: dict[str, Example] = {}
    for example in examples:
        if example.kind == "model":
            if example.name in seen:
                raise ValueError(f"two examples are model {example.name}: {seen[example.name].where} and {example.where}")
            seen[example.name] = example
    return examples


def normalized(text: str) -> str:
    """Text with every run of whitespace as one space: how a fragment is found in its model."""
    return " ".join(text.split())
