"""What every check shares: the node being checked, the document, the diagnostics,
and how messages name types and values."""

from __future__ import annotations

import datetime
from dataclasses import dataclass, field
from enum import Enum

from mcigen_runtime.templating.parser import parse_template
from mcigen_runtime.templating.syntax import Template, TemplateSyntaxError

from ..diagnostics import Diagnostics, Location, quoted
from .literal_markup import literal_markup
from .pointers import child_pointer
from .source import SourceDocument


class TemplateMode(Enum):
    NONE = "none"
    PLACEHOLDERS = "placeholders"
    DIRECTIVES = "directives"


@dataclass(frozen=True)
class At:
    """The node being checked: its JSON pointer and the name messages use for it."""

    pointer: str
    label: str

    def field(self, name: str) -> At:
        return At(child_pointer(self.pointer, name), name)

    def item(self, index: int) -> At:
        return At(child_pointer(self.pointer, index), f"{self.label}[{index}]")

    def entry(self, key: object) -> At:
        return At(child_pointer(self.pointer, key), f"{self.label}.{key}")


@dataclass
class Context:
    """What checks share: the document, the diagnostics and the parsed templates."""

    doc: SourceDocument
    diagnostics: Diagnostics
    mcp_server_names: frozenset[str] | None = None
    """Servers a main schema declares; None in a toolset file (no cross-check)."""
    templates: dict[str, Template] = field(default_factory=dict)
    template_texts: dict[str, str] = field(default_factory=dict)
    whitespace: str = "compat"
    """How directive templates treat whitespace: "compat" (mci-py's) or "trim"."""
    """The string each parsed template came from, for locating positions inside it."""

    def error(self, at: At, message: str, *, on_key: bool = False) -> None:
        self.diagnostics.error(self._where(at, on_key), message)

    def warning(self, at: At, message: str, *, on_key: bool = False) -> None:
        self.diagnostics.warning(self._where(at, on_key), message)

    def type_error(self, at: At, expected: str, value: object) -> None:
        self.error(at, f"{quoted(at.label)} must be {expected}, got {type_name(value)}")

    def value_error(self, at: At, expected: str, value: object, hint: str = "") -> None:
        self.error(
            at, f"{quoted(at.label)} must be {expected}, got {show(value)}{hint}"
        )

    def parse_template(self, at: At, text: str, mode: TemplateMode) -> None:
        errors: list[TemplateSyntaxError] = []
        try:
            template = parse_template(
                text,
                directives=mode is TemplateMode.DIRECTIVES,
                whitespace=self.whitespace,
                errors=errors,
            )
        except TemplateSyntaxError as error:
            errors.append(error)
        for problem in errors:
            where = self.doc.string_location(at.pointer, text, problem.offset)
            self.diagnostics.error(where, problem.message)
        if errors:
            return
        self.templates[at.pointer] = template
        self.template_texts[at.pointer] = text
        directives = mode is TemplateMode.DIRECTIVES
        for offset, message in literal_markup(template, text, directives):
            where = self.doc.string_location(at.pointer, text, offset)
            self.diagnostics.warning(where, message)

    def _where(self, at: At, on_key: bool) -> Location:
        if on_key:
            return self.doc.key_location(at.pointer)
        return self.doc.location(at.pointer)


_TYPE_NAMES: tuple[tuple[type, str], ...] = (
    (bool, "boolean"),
    (int, "integer"),
    (float, "number"),
    (str, "string"),
    (list, "array"),
    (dict, "object"),
    (datetime.datetime, "timestamp"),
    (datetime.date, "date"),
    (bytes, "binary data"),
)


def type_name(value: object) -> str:
    """The JSON name of a value's type (YAML-only types get their YAML name)."""
    if value is None:
        return "null"
    for kind, name in _TYPE_NAMES:
        if isinstance(value, kind):
            return name
    return type(value).__name__


def show(value: object) -> str:
    """A value as messages quote it: strings in single quotes, others as JSON would."""
    if isinstance(value, str):
        return quoted(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    return str(value)


def is_json_kind(value: object, kind: str) -> bool:
    """Whether ``value`` has JSON type ``kind`` (integers count as numbers)."""
    name = type_name(value)
    return name == kind or (kind == "number" and name == "integer")


def check_key_is_string(ctx: Context, at: At, key: object) -> None:
    """A key of the object at ``at`` must be a string (YAML allows any type)."""
    if not isinstance(key, str):
        ctx.error(
            at.entry(key),
            f"keys of {quoted(at.label)} must be strings, got {type_name(key)}",
            on_key=True,
        )
