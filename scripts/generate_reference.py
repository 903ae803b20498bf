#!/usr/bin/env python3
"""The macro reference, docs/reference/, written from the package's own sources so that it cannot drift from them.

    .venv/bin/python scripts/generate_reference.py     (make docs-reference)

One page per macro family's properties file, macros/<family>/_<name>.yml -> docs/reference/<name>.md, and an index
of every macro. A macro's section takes:
- its signature, with the defaults of the public `{% macro name(...) %}` in macros/**/*.sql (the code is the truth
  for defaults; the yml has no place for them);
- from the yml: the description, each argument's type and description, and the macro's `meta`: `returns` (what
  the call gives), `errors` (the compile-time errors, "argument: condition"), `example`:
      {model: NAME}        the macro's call in that model of README.md or docs/ (a doc example, named as
                           tests/python/doc_examples.py names it) or of models/ (the example project), written as a
                           `<!-- fragment: NAME -->` block, so the docs test checks it is part of that model;
      {sql: TEXT}          a whole model (first line `-- models/<name>.sql`) that the docs test builds;
      {bash: TEXT}         a command (run-operations), not built;
      {yaml: TEXT[, file: PATH]}  yaml (a generic test's use, an override's dispatch); with `file`, a
                           `<!-- setup: PATH -->` block that the docs test puts into the user's project.
tests/python/test_reference.py fails when a committed page differs from what this writes, and checks the yml against
the macros' signatures.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

REPO = Path(__file__).resolve().parents[1]
MACROS = REPO / "macros"
REFERENCE = REPO / "docs" / "reference"
COMMAND = "make docs-reference"

# What a doc example is, and its name, as the docs test reads them (one definition of both).
sys.path.insert(0, str(REPO / "tests" / "python"))
from doc_examples import MODEL_PATH, all_examples  # noqa: E402

# Each family's page title and the manuals that explain it (the yml has no file-level keys for them).
FAMILIES: dict[str, tuple[str, list[str]]] = {
    "windowing": ("Windowing TVFs", ["time_zones_and_calendars.md", "semantics.md", "spark_versions.md"]),
    "window_operations": ("Window operations", ["window_operations.md", "final_windows.md", "distinct_counts.md",
                                                "gap_fill.md"]),
    "count_windows_evictors": ("Count windows and evictors", ["count_windows_and_evictors.md"]),
    "table_operations": ("Table API operations", ["table_api.md"]),
    "incremental": ("Incremental models on a schedule", ["pipeline.md", "final_windows.md"]),
    "microbatch": ("dbt microbatch models", ["microbatch.md"]),
    "parsing": ("Parsing landing files", ["landing_parser.md"]),
    "generic_tests": ("Testing windows", ["window_operations.md"]),
    "adapter_overrides": ("dbt-spark fixes (adapter overrides)", ["dbt_spark_fixes.md"]),
}
EXAMPLE_KINDS = ("model", "sql", "bash", "yaml")


@dataclass
class Argument:
    name: str
    default: str | None  # as written in the macro's signature; None when the argument is required


@dataclass
class Signature:
    name: str  # the name dbt documents: test_<name> for a generic test
    called_as: str  # window_tvf.<what a user writes>
    arguments: list[Argument]
    path: Path

    def text(self) -> str:
        parts = [a.name if a.default is None else f"{a.name}={a.default}" for a in self.arguments]
        return f"{self.called_as}({', '.join(parts)})"



def page_link(source: str) -> str:
    """A link to a page of the docs site (docs/...), relative to docs/reference/; a file outside docs/ (README.md,
    models/...) is not a page of the site, so it is named, not linked."""
    return f"[{source}](../{source[len('docs/'):]})" if source.startswith("docs/") else f"`{source}`"

def _outside_quotes(text: str, start: int = 0, depth: int = 0):
    """(index, character, bracket depth before it) of each character of `text` from `start` that is not inside a
    quoted string (Jinja's and Python's quotes alike)."""
    quote, i = None, start
    while i < len(text):
        char = text[i]
        if quote:
            if char == "\\":
                i += 1  # an escaped character
            elif char == quote:
                quote = None
        elif char in "'\"":
            quote = char
        else:
            yield i, char, depth
            depth += (char in "([{") - (char in ")]}")
        i += 1


def _closing(text: str, start: int) -> int:
    """The index just after the bracket that closes the one just before `start`."""
    for i, char, depth in _outside_quotes(text, start, depth=1):
        if char in ")]}" and depth == 1:
            return i + 1
    raise ValueError(f"unbalanced brackets after: {text[max(0, start - 60):start]!r}")


def _split_top_level(text: str) -> list[str]:
    """`text` split at the commas outside quotes and brackets."""
    cuts = [i for i, char, depth in _outside_quotes(text) if char == "," and depth == 0]
    parts = [text[a + 1:b] for a, b in zip([-1, *cuts], [*cuts, len(text)])]
    return [" ".join(part.split()) for part in parts if part.strip()]


def macro_signatures() -> dict[str, Signature]:
    """The public macros defined in macros/**/*.sql: neither private (`_x`) nor a dispatch implementation
    (`default__x`), keyed by the name dbt gives them (a generic test `equality` is the macro test_equality)."""
    found: dict[str, Signature] = {}
    pattern = re.compile(r"\{%-?\s*(macro|test)\s+([A-Za-z_][A-Za-z0-9_]*)\s*\(")
    for path in sorted(MACROS.rglob("*.sql")):
        text = path.read_text()
        for match in pattern.finditer(text):
            kind, name = match.groups()
            if name.startswith(("_", "default__")):
                continue
            arguments = []
            for part in _split_top_level(text[match.end():_closing(text, match.end()) - 1]):
                argument, _, default = part.partition("=")
                arguments.append(Argument(argument.strip(), default.strip() or None))
            key = f"test_{name}" if kind == "test" else name
            if key in found:
                raise ValueError(f"{path.relative_to(REPO)}: macro {key} is defined twice")
            found[key] = Signature(key, f"window_tvf.{name}", arguments, path)
    return found


def property_files() -> list[Path]:
    """The macro families' properties files, the one source of the macros' documentation."""
    return sorted(MACROS.glob("*/_*.yml"))


def page_name(properties: Path) -> str:
    return properties.stem.lstrip("_")


def documented_macros(properties: Path) -> list[dict[str, Any]]:
    """The macros a properties file documents, their `meta` as dbt reads it (see _as_dbt_renders)."""
    macros = (yaml.safe_load(properties.read_text()) or {}).get("macros", [])
    for macro in macros:
        if "meta" in macro:
            macro["meta"] = _as_dbt_renders(macro["meta"], f"{properties.relative_to(REPO)}: {macro['name']}")
    return macros


def _as_dbt_renders(value: Any, where: str) -> Any:
    """A meta value as dbt parses it: dbt renders the strings of a properties file (all but descriptions) as Jinja,
    so an example's own Jinja is written inside {% raw %} ... {% endraw %}, which rendering takes away. Jinja outside
    raw would run at parse time: an error here."""
    if isinstance(value, dict):
        return {key: _as_dbt_renders(item, where) for key, item in value.items()}
    if isinstance(value, list):
        return [_as_dbt_renders(item, where) for item in value]
    if not isinstance(value, str):
        return value
    outside = re.sub(r"(?s)\{%-?\s*raw\s*-?%\}.*?\{%-?\s*endraw\s*-?%\}", "", value)
    if re.search(r"\{\{|\{%|\{#", outside):
        raise ValueError(f"{where}: meta holds Jinja that dbt would render when it parses the yml; put it in "
                         "{% raw %} ... {% endraw %}")
    return re.sub(r"(?s)\{%-?\s*raw\s*-?%\}(.*?)\{%-?\s*endraw\s*-?%\}", r"\1", value)


def _doc_blocks() -> dict[str, str]:
    blocks = {}
    for path in MACROS.rglob("*.md"):
        for name, body in re.findall(r"(?s)\{%\s*docs\s+(\w+)\s*%\}(.*?)\{%\s*enddocs\s*%\}", path.read_text()):
            blocks[name] = body.strip()
    return blocks


def _paragraphs(text: str, docs: dict[str, str]) -> list[str]:
    """A yml description as markdown paragraphs, each on one line: a folded scalar's lines are its paragraphs, and
    `{{ doc('x') }}` stands for the paragraphs of that docs block (macros/**/*.md)."""
    paragraphs = []
    for line in (text or "").strip().split("\n"):
        for i, part in enumerate(re.split(r"\{\{\s*doc\(\s*['\"](\w+)['\"]\s*\)\s*\}\}", line)):
            paragraphs += re.split(r"\n\s*\n", docs[part]) if i % 2 else [part]
    return [" ".join(p.split()) for p in paragraphs if p.strip()]


def _cell(text: str) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


def _anchor(heading: str) -> str:
    """The anchor GitHub and mkdocs give a heading: lower case, punctuation other than - and _ dropped."""
    return re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-")


def summary(description: str) -> str:
    """What the index shows of a description: its first sentence, or of a long one the part before its first colon."""
    text = " ".join(re.sub(r"\{\{.*?\}\}", "", description or "").split())
    match = re.search(r"(?<!e\.g)(?<!i\.e)(?<!\.)\.(\s|$)", text)
    sentence = text[:match.start() + 1] if match else text
    return sentence.split(": ")[0] if len(sentence) > 170 and ": " in sentence else sentence


class ExampleError(ValueError):
    pass


@dataclass
class ExampleModel:
    text: str
    source: str  # the page or models/ file that holds it, relative to the repository
    named: bool  # whether its text names it (`-- models/<name>.sql`, or a models/ file); else doc_examples numbers it


def _example_models() -> dict[str, ExampleModel]:
    """The models an example may be part of, by name: those of README.md and docs/ outside the reference (its own
    examples are not sources), then the example project's models/."""
    models = {}
    for example in all_examples():
        if example.kind == "model" and REFERENCE not in example.page.parents:
            models[example.name] = ExampleModel(example.text, str(example.page.relative_to(REPO)),
                                                bool(MODEL_PATH.match(example.text)))
    for path in sorted((REPO / "models").rglob("*.sql")):
        models.setdefault(path.stem, ExampleModel(path.read_text(), str(path.relative_to(REPO)), True))
    return models


def macro_call(text: str, called_as: str) -> str:
    """The first call `called_as(...)` in `text`, with the `{{ }}` around it when it is a whole expression."""
    match = re.search(re.escape(called_as) + r"\s*\(", text)
    if not match:
        raise ExampleError(f"no call of {called_as}")
    end = _closing(text, match.end())
    start = match.start()
    before, after = re.search(r"\{\{\s*$", text[:start]), re.match(r"\s*\}\}", text[end:])
    if before and after:
        start, end = before.start(), end + after.end()
    return text[start:end]


def _example(signature: Signature, example: Any, models: dict[str, ExampleModel], where: str) -> list[str]:
    if not isinstance(example, dict) or len(set(example) & set(EXAMPLE_KINDS)) != 1:
        raise ExampleError(f"{where}: meta.example must be a dict with one of {', '.join(EXAMPLE_KINDS)}")
    if "model" in example:
        name = example["model"]
        if name not in models:
            raise ExampleError(f"{where}: no example model named {name} in README.md, docs/ or models/")
        model = models[name]
        try:
            call = macro_call(model.text, signature.called_as)
        except ExampleError as error:
            raise ExampleError(f"{where}: model {name} ({model.source}) has {error}") from None
        what = f"the model `{name}`" if model.named else "an example"
        return [f"Part of {what} in {page_link(str(model.source))}:", "", f"<!-- fragment: {name} -->",
                "```sql", call.rstrip(), "```"]
    if "sql" in example:
        text = example["sql"].rstrip()
        if not re.match(r"--\s*models/\S+\.sql\b", text):
            raise ExampleError(f"{where}: a whole example model starts with a line `-- models/<name>.sql`")
        if not re.search(re.escape(signature.called_as) + r"\s*\(", text):
            raise ExampleError(f"{where}: the example model does not call {signature.called_as}")
        return ["A whole model (the docs test builds it):", "", "```sql", text, "```"]
    if "bash" in example:
        return ["```bash", example["bash"].rstrip(), "```"]
    lines = [f"<!-- setup: {example['file']} -->"] if example.get("file") else []
    intro = f"In `{example['file']}`:" if example.get("file") else "In the project's yml:"
    return [intro, "", *lines, "```yaml", example["yaml"].rstrip(), "```"]


def _section(macro: dict[str, Any], signature: Signature, docs: dict[str, str],
             models: dict[str, ExampleModel], where: str) -> list[str]:
    meta = macro.get("meta") or {}
    lines = [f"## {signature.called_as}", "", "```text", signature.text(), "```", ""]
    if macro["name"] != signature.called_as.split(".", 1)[1]:
        lines += [f"A generic test (the macro `{macro['name']}`).", ""]
    lines += [f"**Returns** {meta.get('returns', '')}", ""]
    for paragraph in _paragraphs(macro.get("description", ""), docs):
        lines += [paragraph, ""]
    defaults = {argument.name: argument.default for argument in signature.arguments}
    arguments = macro.get("arguments") or []
    if arguments:
        lines += ["| argument | type | default | what it is, allowed values |", "|---|---|---|---|"]
        for argument in arguments:
            default = defaults.get(argument["name"])
            lines.append(f"| `{argument['name']}` | {_cell(argument.get('type', ''))} | "
                         f"{'required' if default is None else '`' + _cell(default) + '`'} | "
                         f"{_cell(argument.get('description', ''))} |")
        lines.append("")
    errors = meta.get("errors") or []
    lines += ["**Errors at compile time**" + (" (each names the macro, the argument, the value and what is allowed):"
                                               if errors else ": none of its own."), ""]
    for error in errors:
        head, colon, rest = error.partition(": ")
        lines.append(f"- `{head}`: {rest}" if colon and head in defaults else f"- {error}")
    if errors:
        lines.append("")
    lines += ["**Example**", "", *_example(signature, meta.get("example"), models, where), ""]
    return lines


def render_pages() -> dict[Path, str]:
    """Every reference page's path and text."""
    signatures, docs, models = macro_signatures(), _doc_blocks(), _example_models()
    pages: dict[Path, str] = {}
    index = ["# Macro reference", "",
             f"*Generated by `{COMMAND}` (scripts/generate_reference.py) from the macro families' yml files "
             "(macros/\\*/\\_\\*.yml) and the macros' definitions: edit those, not these pages.*", "",
             "Every public macro of window_tvf, by family. A model calls one as `{{ window_tvf.<macro>(...) }}` (a few "
             "are run-operations, a generic test or dbt-spark fixes, as their sections say); bad arguments fail when "
             "the model compiles, naming the macro, the argument, the value and what is allowed.",
             ""]
    files = {page_name(properties): properties for properties in property_files()}
    for name in set(files) - set(FAMILIES):
        raise ValueError(f"{files[name].relative_to(REPO)}: add its page title to FAMILIES in {Path(__file__).name}")
    for name, properties in sorted(files.items(), key=lambda item: list(FAMILIES).index(item[0])):
        title, manuals = FAMILIES[name]
        source = properties.relative_to(REPO)
        macros = documented_macros(properties)
        lines = [f"# {title}", "",
                 f"*Generated by `{COMMAND}` (scripts/generate_reference.py) from `{source}` and the "
                 "macros' definitions: edit those, not this page.*", "",
                 "Manuals: " + ", ".join(f"[{m}](../{m})" for m in manuals) + ". [All macros](index.md).", ""]
        index += [f"## [{title}]({name}.md)", ""]
        for macro in macros:
            signature = signatures.get(macro["name"])
            if signature is None:
                raise ValueError(f"{source}: {macro['name']} is documented but no macro of that name is defined")
            anchor = _anchor(signature.called_as)
            lines.append(f"- [{signature.called_as}](#{anchor})")
            index.append(f"- [{signature.called_as}]({name}.md#{anchor}): {summary(macro.get('description', ''))}")
        lines.append("")
        index.append("")
        for macro in macros:
            lines += _section(macro, signatures[macro["name"]], docs, models, f"{source}: {macro['name']}")
        pages[REFERENCE / f"{name}.md"] = "\n".join(lines).rstrip() + "\n"
    pages[REFERENCE / "index.md"] = "\n".join(index).rstrip() + "\n"
    return pages


def main() -> None:
    pages = render_pages()
    REFERENCE.mkdir(parents=True, exist_ok=True)
    for stale in set(REFERENCE.glob("*.md")) - set(pages):
        stale.unlink()
        print(f"removed {stale.relative_to(REPO)}")
    for path, text in pages.items():
        if not path.exists() or path.read_text() != text:
            path.write_text(text)
            print(f"wrote {path.relative_to(REPO)}")


if __name__ == "__main__":
    main()
