"""window_tvf as a user meets it: a dbt project of their own that installs the package (consumer_project.py).

Every SQL example of README.md and docs/ (doc_examples.py) is a model of that project, built as written in one
`dbt build` with exactly the setup the docs show beside them; where a page shows the rows an example gives, the
model gives exactly those. Then every public macro that returns a SELECT is put wherever an analyst puts one
(composition.py) and must give the same rows there.
"""

from __future__ import annotations

import datetime as dt
import decimal
import re
from collections import Counter
from pathlib import Path

import pytest

from composition import CALLS, NOT_A_SELECT, composition_models, public_macros
from consumer_project import ConsumerProject
from dbt_harness import REPO, TEST_DIR, DbtRun
from doc_examples import Example, all_examples, normalized

EXAMPLES = all_examples()
MODELS = {example.name: example for example in EXAMPLES if example.kind == "model"}


@pytest.fixture(scope="module")
def consumer(project_spark) -> ConsumerProject:
    """The user's project, with its packages installed (`dbt deps`)."""
    project = ConsumerProject.create(TEST_DIR / "consumer_project", EXAMPLES)
    for name, sql in composition_models().items():
        project.write(f"models/composition/{name}.sql", sql)
    deps = project.dbt(["deps"])
    assert deps.success, deps.messages
    return project


@pytest.fixture(scope="module")
def consumer_build(consumer: ConsumerProject) -> DbtRun:
    """One `dbt build` of the whole project: its seeds, every doc example and every composition model."""
    run = consumer.dbt(["build", *consumer.build_args])
    assert run.result is not None, run.messages
    return run


def test_every_doc_example_builds_as_written(consumer_build: DbtRun) -> None:
    """Every node of the build passes (the examples, the seeds the docs show, the tests they declare), and only the
    user's own nodes are built: nothing of window_tvf's example project leaks into theirs."""
    built = {r.node.name for r in consumer_build.result.results if "models/docs/" in r.node.original_file_path}
    assert built == set(MODELS), "every example is a model of the build"
    assert {r.node.package_name for r in consumer_build.result.results} == {"my_project"}
    failures = [
        f"{MODELS[r.node.name].where if r.node.name in MODELS else r.node.original_file_path} ({r.node.name}): "
        f"{r.status}: {r.message}"
        for r in consumer_build.result.results
        if str(r.status) not in ("success", "pass") and "models/composition/" not in r.node.original_file_path
    ]
    assert not failures, "\n\n".join(failures)


def _text(value: object) -> str:
    """A value as a doc's table shows it."""
    if value is None:
        return "NULL"
    if isinstance(value, dt.datetime):
        text = value.isoformat(" ")
        return re.sub(r"\.?0+$", "", text) if "." in text else text
    if isinstance(value, dt.date):
        return value.isoformat()
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, decimal.Decimal):
        return str(value)
    return str(value)


ROW_TABLES = [(name, table) for name, example in MODELS.items() for table in example.rows]


@pytest.mark.parametrize("name, table", ROW_TABLES, ids=[f"{name}:{table.line}" for name, table in ROW_TABLES])
def test_doc_example_gives_the_rows_its_page_shows(consumer_build: DbtRun, project_spark, name: str, table) -> None:
    relation = consumer_build.results_by_name()[name].node.relation_name
    frame = project_spark.table(relation)
    missing = [column for column in table.columns if column not in frame.columns]
    assert missing == [], f"{MODELS[name].where}: the table shows columns the model lacks"
    rows = Counter(tuple(_text(row[column]) for column in table.columns) for row in frame.collect())
    assert rows == Counter(table.rows), f"{MODELS[name].where}: rows differ from the table at line {table.line}"


FRAGMENTS = [example for example in EXAMPLES if example.kind in ("fragment", "prelude")]


def _model_source(name: str) -> str | None:
    if name in MODELS:
        return MODELS[name].sql
    found = list((REPO / "models").rglob(f"{name}.sql"))
    return found[0].read_text() if len(found) == 1 else None


@pytest.mark.parametrize("fragment", FRAGMENTS, ids=[example.where for example in FRAGMENTS])
def test_doc_fragment_is_part_of_the_model_it_names(fragment: Example) -> None:
    """A fragment compiles where its model does: it is in that model's text (a doc example's, built above, or an
    example-project model's, built by the project's own `dbt build`); a prelude is in every later example's."""
    if fragment.kind == "prelude":
        holders = [example for example in MODELS.values() if example.page == fragment.page and example.line > fragment.line]
        assert holders, f"{fragment.where}: a prelude with no example after it"
        for holder in holders:
            assert all(normalized(part) in normalized(holder.sql)
                       for part in re.split(r"(?i)\bwith\b", fragment.text, maxsplit=1) if part.strip())
        return
    source = _model_source(fragment.target)
    assert source is not None, f"{fragment.where}: no doc example and no model under models/ is named {fragment.target}"
    assert normalized(fragment.text) in normalized(source), f"{fragment.where}: not part of {fragment.target}"


def test_every_public_macro_is_composed_or_says_why_not() -> None:
    composed = {macro for macro, _, _, _ in CALLS.values()}
    assert composed | set(NOT_A_SELECT) == public_macros()
    assert composed & set(NOT_A_SELECT) == set()


@pytest.mark.parametrize("call", sorted(CALLS))
def test_macro_composes_wherever_an_analyst_puts_it(consumer_build: DbtRun, project_spark, call: str) -> None:
    """The macro's rows as a model's whole statement; the same rows after the analyst's own WITH list (reading one
    of its CTEs, beside CTEs named like the macro's own), as a CTE body, as a subquery, and twice in one model."""
    results = consumer_build.results_by_name()
    failures = [f"{name}: {result.status}: {result.message}" for name, result in results.items()
                if name.startswith(f"{call}__") and str(result.status) != "success"]
    assert not failures, "\n\n".join(failures)

    def rows(position: str) -> Counter:
        frame = project_spark.table(results[f"{call}__{position}"].node.relation_name)
        return Counter(tuple(_text(value) for value in row) for row in frame.collect())

    whole = rows("whole")
    assert sum(whole.values()) > 0, "the composition's input gives no rows: it would prove nothing"
    assert rows("after_with") == whole
    assert rows("nested") == Counter({("cte body", *row): n for row, n in whole.items()}
                                     | {("subquery", *row): n for row, n in whole.items()})
