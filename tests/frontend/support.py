"""Helpers shared by the frontend tests: write a schema, load it, locate tokens."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from mcigen import ir
from mcigen.diagnostics import Diagnostics
from mcigen.frontend.mci import load_schema

FORMATS = ("json", "yaml")


def render(document: Any, fmt: str) -> str:
    """``document`` as JSON (indent 2) or block-style YAML, keys in the given order."""
    if fmt == "json":
        return json.dumps(document, indent=2) + "\n"
    return yaml.safe_dump(document, sort_keys=False, allow_unicode=True, width=1000)


def load_text(
    tmp_path: Path, text: str, suffix: str, *, toolset_file: bool = False
) -> tuple[ir.Schema | None, Diagnostics, str]:
    """Write ``text`` to ``s<suffix>`` and load it; returns the file name printed too."""
    name = f"s{suffix}"
    (tmp_path / name).write_text(text, encoding="utf-8")
    schema, diagnostics = load_schema(
        tmp_path / name, display_name=name, toolset_file=toolset_file
    )
    return schema, diagnostics, name


def diagnostic_lines(
    tmp_path: Path, text: str, suffix: str, *, toolset_file: bool = False
) -> list[str]:
    _, diagnostics, _ = load_text(tmp_path, text, suffix, toolset_file=toolset_file)
    return [str(item) for item in diagnostics.items]


def position(text: str, index: int) -> str:
    line = text.count("\n", 0, index) + 1
    column = index - (text.rfind("\n", 0, index) + 1) + 1
    return f"{line}:{column}"


@dataclass(frozen=True)
class Token:
    """Where a diagnostic should point: the ``occurrence``-th ``needle`` (or
    ``yaml_needle`` in YAML) after the first ``after`` landmark, backed up over an
    opening quote so that a string or key is located at its quote."""

    needle: str
    occurrence: int = 1
    yaml_needle: str | None = None
    after: str = ""

    def find(self, text: str, fmt: str) -> int:
        needle = self.yaml_needle if fmt == "yaml" and self.yaml_needle else self.needle
        index = text.find(self.after) + len(self.after) - 1 if self.after else -1
        for _ in range(self.occurrence):
            index = text.find(needle, index + 1)
            assert index >= 0, f"{needle!r} not found in\n{text}"
        if index > 0 and text[index - 1] in "\"'":
            index -= 1
        return index


@dataclass(frozen=True)
class ObjectWith(Token):
    """The object whose first key is ``needle``: at its ``{`` in JSON and at that
    first key in a YAML block mapping."""

    def find(self, text: str, fmt: str) -> int:
        index = super().find(text, fmt)
        return text.rfind("{", 0, index) if fmt == "json" else index


@dataclass(frozen=True)
class Inside(Token):
    """A character inside a string value: the needle itself, no quote backing up."""

    def find(self, text: str, fmt: str) -> int:
        index = text.find(self.needle, text.find(self.after) if self.after else 0)
        assert index >= 0, f"{self.needle!r} not found in\n{text}"
        return index


def tool_schema(execution: Any = None, **fields: Any) -> dict[str, Any]:
    """A main schema with one tool named 'tool1'; ``fields`` go before its execution."""
    tool = {"name": "tool1", **fields}
    tool["execution"] = (
        execution if execution is not None else {"type": "text", "text": "hi"}
    )
    return {"schemaVersion": "1.0", "tools": [tool]}


def http_schema(**fields: Any) -> dict[str, Any]:
    return tool_schema({"type": "http", "url": "https://example.com", **fields})
