"""The macro reference (docs/reference/) is what scripts/generate_reference.py writes from the yml and the macros, and
the yml documents every public macro as its signature defines it. Pure Python: no Spark, no dbt run."""

from __future__ import annotations

import difflib
import re
import sys

import pytest

from dbt_harness import REPO

sys.path.insert(0, str(REPO / "scripts"))
import generate_reference as reference  # noqa: E402

SIGNATURES = reference.macro_signatures()
DOCUMENTED = {macro["name"]: macro for path in reference.property_files() for macro in reference.documented_macros(path)}


def test_committed_pages_are_what_the_generator_writes() -> None:
    pages = reference.render_pages()
    stale = sorted(str(path.relative_to(REPO)) for path in set(reference.REFERENCE.glob("*.md")) - set(pages))
    assert not stale, f"{stale}: no yml file writes these pages any more; run `{reference.COMMAND}` and commit"
    for path, text in pages.items():
        committed = path.read_text() if path.exists() else ""
        if committed != text:
            diff = "\n".join(list(difflib.unified_diff(committed.splitlines(), text.splitlines(), "committed",
                                                       "generated", lineterm=""))[:40])
            pytest.fail(f"{path.relative_to(REPO)} differs from what scripts/generate_reference.py writes from the "
                        f"yml and the macros: run `{reference.COMMAND}` and commit the result\n{diff}")


def test_every_public_macro_has_a_yml_entry_and_every_entry_a_macro() -> None:
    assert sorted(set(SIGNATURES) - set(DOCUMENTED)) == [], "public macros without an entry in a macros/*/_*.yml"
    assert sorted(set(DOCUMENTED) - set(SIGNATURES)) == [], "yml entries without a public macro of that name"


@pytest.mark.parametrize("name", sorted(DOCUMENTED))
def test_yml_arguments_are_the_signatures(name: str) -> None:
    """The yml lists every argument of the macro's signature, in its order, each with a type and a description."""
    signature = SIGNATURES.get(name)
    if signature is None:
        pytest.skip("no macro of that name (the test above fails)")
    documented = DOCUMENTED[name].get("arguments") or []
    assert [a["name"] for a in documented] == [a.name for a in signature.arguments], (
        f"{name}: the yml's arguments differ from the signature in {signature.path.relative_to(REPO)}")
    assert [a["name"] for a in documented if not a.get("type") or not a.get("description")] == []


# An error's head names the arguments it is about ("size: ...", "left, right: ..."); other items are sentences.
ARGUMENT_HEAD = re.compile(r"^[a-z_]+(, [a-z_]+)*$")


@pytest.mark.parametrize("name", sorted(DOCUMENTED))
def test_every_macro_says_what_it_returns_raises_and_an_example(name: str) -> None:
    meta = DOCUMENTED[name].get("meta") or {}
    assert isinstance(meta.get("returns"), str) and meta["returns"].strip(), f"{name}: meta.returns"
    errors = meta.get("errors")
    assert isinstance(errors, list) and all(isinstance(e, str) and e.strip() for e in errors), f"{name}: meta.errors"
    arguments = {argument.name for argument in SIGNATURES[name].arguments} if name in SIGNATURES else set()
    for error in errors:
        head = error.partition(": ")[0]
        if ARGUMENT_HEAD.match(head):
            assert set(head.split(", ")) <= arguments, f"{name}: an error about an argument it does not have: {error}"
    example = meta.get("example")
    assert isinstance(example, dict) and len(set(example) & set(reference.EXAMPLE_KINDS)) == 1, (
        f"{name}: meta.example is one of {reference.EXAMPLE_KINDS}")


def test_reference_links_resolve() -> None:
    """Every relative link of the reference reaches a file, and every #anchor into a reference page a heading."""
    anchors = {path.name: {reference._anchor(h) for h in re.findall(r"(?m)^#+ (.+)$", path.read_text())}
               for path in reference.REFERENCE.glob("*.md")}
    broken = []
    for path in sorted(reference.REFERENCE.glob("*.md")):
        for target in re.findall(r"\]\(([^)\s]+)\)", path.read_text()):
            if re.match(r"^[a-z]+:", target):
                continue
            file, _, anchor = target.partition("#")
            resolved = (path.parent / file).resolve() if file else path
            if not resolved.exists() or (anchor and resolved.parent == reference.REFERENCE
                                         and anchor not in anchors.get(resolved.name, set())):
                broken.append(f"{path.relative_to(REPO)}: {target}")
    assert broken == []
