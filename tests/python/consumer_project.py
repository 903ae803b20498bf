"""A user's own dbt project that installs window_tvf with `packages.yml` (local:), made from what the docs tell a user.

Its files come from the docs' setup blocks (doc_examples: dbt_project.yml, profiles.yml, packages.yml, model yml,
seeds), its models from the docs' examples, and the rest of its seeds, small tables named as the examples name their
inputs, from tests/consumer_project/. Nothing else: a setup a page does not show is a setup the test does not have.
"""

from __future__ import annotations

import shlex
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from dbt_harness import REPO, DbtRun, run_dbt
from doc_examples import Example

TEMPLATE = REPO / "tests" / "consumer_project"


class SetupConflict(ValueError):
    pass


def merged(base: Any, extra: Any, where: str) -> Any:
    """Two setup blocks' yaml as one file: mappings merge key by key, lists add up, other values must agree."""
    if isinstance(base, dict) and isinstance(extra, dict):
        out = dict(base)
        for key, value in extra.items():
            out[key] = merged(base[key], value, f"{where}.{key}") if key in base else value
        return out
    if isinstance(base, list) and isinstance(extra, list):
        # Resources (models:, seeds:) merge by name, as dbt would read one entry per resource.
        named = {item["name"]: i for i, item in enumerate(base) if isinstance(item, dict) and "name" in item}
        out = list(base)
        for item in extra:
            if isinstance(item, dict) and item.get("name") in named:
                at = named[item["name"]]
                out[at] = merged(out[at], item, f"{where}[{item['name']}]")
            elif item not in out:
                out.append(item)
        return out
    if base != extra:
        raise SetupConflict(f"{where}: the docs set it to {base!r} in one place and {extra!r} in another")
    return base


def installed_here(packages: dict) -> dict:
    """packages.yml with window_tvf installed from this checkout: the docs' `git:` entry (a release) cannot be
    fetched here, and a `local:` entry names the user's own checkout."""
    entries = []
    for entry in packages.get("packages", []):
        if "window-tvf" in str(entry.get("git", "")) or "local" in entry:
            entry = {"local": str(REPO)}
        entries.append(entry)
    return {**packages, "packages": entries}


def build_flags(command: str, where: str) -> tuple[str, ...]:
    """The flags of a doc's `dbt build` command that the one build of every example takes: the microbatch range."""
    words = shlex.split(command.strip())
    if words[:2] != ["dbt", "build"]:
        raise SetupConflict(f"{where}: a setup command must be a `dbt build`, got {command.strip()!r}")
    flags = []
    for i, word in enumerate(words[2:], start=2):
        if word in ("--event-time-start", "--event-time-end"):
            flags += [word, words[i + 1]]
        elif word.startswith("--") and words[i - 1] not in ("--event-time-start", "--event-time-end"):
            raise SetupConflict(f"{where}: the one build of every example cannot take {word}")
    return tuple(flags)


@dataclass
class ConsumerProject:
    path: Path
    # What the docs' `dbt build` commands add (<!-- setup: command -->): --event-time-start/--event-time-end.
    build_args: tuple[str, ...] = ()

    @classmethod
    def create(cls, path: Path, examples: list[Example]) -> "ConsumerProject":
        """The project at `path` (emptied first): the template's seeds, the docs' setup blocks, the examples."""
        shutil.rmtree(path, ignore_errors=True)
        shutil.copytree(TEMPLATE, path)
        project = cls(path)
        yaml_files: dict[str, tuple[Any, str]] = {
            str(file.relative_to(path)): (yaml.safe_load(file.read_text()) or {}, str(file))
            for file in path.rglob("*.yml")
        }
        for example in examples:
            if example.kind == "setup" and example.target == "command":
                flags = build_flags(example.text, example.where)
                if project.build_args and flags != project.build_args:
                    raise SetupConflict(f"{example.where}: builds {flags}, another page {project.build_args}")
                project.build_args = flags
            elif example.kind == "setup" and example.target.endswith((".yml", ".yaml")):
                data = yaml.safe_load(example.text) or {}
                if example.target in yaml_files:
                    data = merged(yaml_files[example.target][0], data, f"{example.target} ({example.where})")
                yaml_files[example.target] = (data, example.where)
            elif example.kind == "setup":
                project.write(example.target, example.text, example.where)
            elif example.kind == "model":
                project.write(f"models/docs/{example.name}.sql", example.sql, example.where)
        if "packages.yml" in yaml_files:
            yaml_files["packages.yml"] = (installed_here(yaml_files["packages.yml"][0]), "")
        for target, (data, where) in yaml_files.items():
            project.write(target, yaml.safe_dump(data, sort_keys=False), where)
        return project

    def write(self, relative: str, text: str, where: str = "") -> None:
        path = self.path / relative
        if path.exists() and path.read_text() != text and not relative.endswith(".yml"):
            raise SetupConflict(f"{relative}: written twice with different content ({where})")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)

    def dbt(self, args: list[str]) -> DbtRun:
        return run_dbt(args, project_dir=self.path)
