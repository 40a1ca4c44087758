"""``[tool.mcigen]`` in a project's ``pyproject.toml``: the builds ``mcigen build``
(and ``check``) run when no SCHEMA is given.

One table is one build; ``[[tool.mcigen.builds]]`` lists several. A build names its
``input`` and ``output`` (relative to the ``pyproject.toml``), and may give ``name``,
``whitespace``, ``form`` (``package``, ``project`` or ``vendored``) and ``flags``
(more command-line options, as written: ``["--limit", "http_body=1MiB"]``). Each
build becomes the command line it stands for, so it is checked as that one is.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mcigen_runtime.templating.parser import WHITESPACE_MODES

from .diagnostics import Diagnostics, Location, did_you_mean, quoted

PYPROJECT = "pyproject.toml"
FORMS = {"package": [], "project": ["--project"], "vendored": ["--vendor-runtime"]}
_STRINGS = ("input", "output", "name", "whitespace", "form")
_KEYS = (*_STRINGS, "flags")


class ConfigError(Exception):
    """The configuration cannot be used; ``diagnostics`` say where and why."""

    def __init__(self, diagnostics: Diagnostics) -> None:
        super().__init__(diagnostics.render())
        self.diagnostics = diagnostics


@dataclass(frozen=True)
class ConfiguredBuild:
    arguments: list[str]
    """``SCHEMA -o DIR ...`` as the command line would give them."""
    input: Path
    output: Path


def find_pyproject(start: Path) -> Path | None:
    """The nearest ``pyproject.toml`` at or above ``start`` that has ``[tool.mcigen]``."""
    for directory in (start, *start.parents):
        candidate = directory / PYPROJECT
        if candidate.is_file() and "mcigen" in _tools(_read(candidate)):
            return candidate
    return None


def configured_builds(pyproject: Path) -> list[ConfiguredBuild]:
    """The builds ``pyproject`` configures; raises :class:`ConfigError`."""
    text = pyproject.read_text(encoding="utf-8")
    table = _tools(_read(pyproject)).get("mcigen")
    diagnostics = Diagnostics()
    locate = _Locator(str(pyproject), text)
    builds: list[ConfiguredBuild] = []
    if not isinstance(table, dict):
        diagnostics.error(locate.table(0), "'tool.mcigen' must be a table")
    elif "builds" in table:
        others = [key for key in table if key != "builds"]
        if others:
            diagnostics.error(
                locate.key(0, others[0]),
                f"{quoted(others[0])} next to 'builds': give it in each [[tool.mcigen.builds]]",
            )
        entries = table["builds"]
        if not isinstance(entries, list) or not all(
            isinstance(e, dict) for e in entries
        ):
            diagnostics.error(
                locate.key(0, "builds"),
                "'builds' must be a list of tables ([[tool.mcigen.builds]])",
            )
        else:
            for index, entry in enumerate(entries):
                built = _build(entry, index + 1, pyproject.parent, locate, diagnostics)
                builds.extend(built)
    else:
        builds.extend(_build(table, 0, pyproject.parent, locate, diagnostics))
    if diagnostics.has_errors:
        raise ConfigError(diagnostics)
    return builds


def _build(
    entry: dict[str, Any],
    index: int,
    root: Path,
    locate: _Locator,
    diagnostics: Diagnostics,
) -> Iterator[ConfiguredBuild]:
    errors = len(diagnostics.items)
    for key, value in entry.items():
        where = locate.key(index, key)
        if key not in _KEYS:
            diagnostics.error(
                where,
                f"unknown key {quoted(key)} in {_table_name(index)}"
                f"{did_you_mean(key, _KEYS)}; "
                f"keys are {', '.join(_KEYS)}",
            )
        elif key in _STRINGS and not isinstance(value, str):
            diagnostics.error(where, f"{quoted(key)} must be a string")
        elif key == "flags" and not (
            isinstance(value, list) and all(isinstance(v, str) for v in value)
        ):
            diagnostics.error(where, "'flags' must be a list of strings")
        elif key == "whitespace" and value not in WHITESPACE_MODES:
            diagnostics.error(
                where, f"'whitespace' must be one of {', '.join(WHITESPACE_MODES)}"
            )
        elif key == "form" and value not in FORMS:
            diagnostics.error(where, f"'form' must be one of {', '.join(FORMS)}")
    for key in ("input", "output"):
        if key not in entry:
            diagnostics.error(
                locate.table(index), f"missing required key {quoted(key)}"
            )
    if len(diagnostics.items) > errors:
        return
    schema, output = root / entry["input"], root / entry["output"]
    arguments = [str(schema), "-o", str(output)]
    if "name" in entry:
        arguments += ["--name", entry["name"]]
    if "whitespace" in entry:
        arguments += ["--whitespace", entry["whitespace"]]
    arguments += FORMS[entry.get("form", "package")]
    arguments += entry.get("flags", [])
    yield ConfiguredBuild(arguments, schema, output)


def _table_name(index: int) -> str:
    return "[[tool.mcigen.builds]]" if index else "[tool.mcigen]"


def _read(pyproject: Path) -> dict[str, Any]:
    try:
        with pyproject.open("rb") as handle:
            return tomllib.load(handle)
    except tomllib.TOMLDecodeError as error:
        diagnostics = Diagnostics()
        line, column = _toml_position(str(error))
        message = re.sub(r" \(at line \d+, column \d+\)$", "", str(error))
        diagnostics.error(Location(str(pyproject), line, column), message)
        raise ConfigError(diagnostics) from None


def _tools(document: dict[str, Any]) -> dict[str, Any]:
    tool = document.get("tool")
    return tool if isinstance(tool, dict) else {}


def _toml_position(message: str) -> tuple[int, int]:
    found = re.search(r"line (\d+), column (\d+)", message)
    return (int(found[1]), int(found[2])) if found else (1, 1)


class _Locator:
    """Where a key of ``[tool.mcigen]`` (``build`` 0) or of the n-th
    ``[[tool.mcigen.builds]]`` was written: tomllib keeps no positions, so the
    text is searched, the table's header first, then the key's line under it."""

    def __init__(self, file: str, text: str) -> None:
        self.file = file
        self.lines = text.splitlines()

    def table(self, build: int) -> Location:
        header = self._header(build)
        return Location(self.file, header + 1, 1)

    def key(self, build: int, key: str) -> Location:
        header = self._header(build)
        pattern = re.compile(rf"""\s*(["']?){re.escape(key)}\1\s*=""")
        for number in range(header + 1, len(self.lines)):
            line = self.lines[number]
            if line.lstrip().startswith("["):
                break
            if pattern.match(line):
                return Location(
                    self.file, number + 1, len(line) - len(line.lstrip()) + 1
                )
        return self.table(build)

    def _header(self, build: int) -> int:
        """The line index of the table's header (0 when not found)."""
        wanted = (
            r"\[\[\s*tool\.mcigen\.builds\s*\]\]"
            if build
            else r"\[\s*tool\.mcigen\s*\]"
        )
        seen = 0
        for number, line in enumerate(self.lines):
            if re.match(rf"\s*{wanted}", line):
                seen += 1
                if not build or seen == build:
                    return number
        return 0
