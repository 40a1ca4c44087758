"""Read a schema file into plain Python data plus a source map of every node."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ..diagnostics import Diagnostics, Location, quoted
from ..input_file import read_input
from .budget import max_document_bytes, max_document_chars
from .json_reader import read_json
from .lines import JSON_LINE_BREAKS, YAML_LINE_BREAKS, LineIndex
from .parsed import DuplicateKey, NodeSpan, ParsedText, SourceSyntaxError
from .pointers import parent_pointer
from .string_offsets import source_index
from .yaml_reader import read_yaml


@dataclass
class SourceDocument:
    """A parsed schema file: its data and where every part of it was written."""

    file: str
    text: str
    lines: LineIndex
    parsed: ParsedText

    @property
    def data(self) -> object:
        return self.parsed.data

    @property
    def duplicate_keys(self) -> list[DuplicateKey]:
        return self.parsed.duplicate_keys

    def location(self, pointer: str) -> Location:
        """Where the value at ``pointer`` starts."""
        return self._at(self._span(pointer).value, pointer)

    def key_location(self, pointer: str) -> Location:
        """Where the key of the member at ``pointer`` starts (its value for array items)."""
        span = self._span(pointer)
        return self._at(span.value if span.key is None else span.key, pointer)

    def string_location(self, pointer: str, value: str, offset: int) -> Location:
        """Where character ``offset`` of the string ``value`` at ``pointer`` was written."""
        string = self.parsed.strings.get(pointer)
        if string is None:
            return self.location(pointer)
        index = source_index(self.text, self.lines, string, value, offset)
        return self._at(index, pointer)

    def index_location(self, index: int, pointer: str = "") -> Location:
        return self._at(index, pointer)

    def _span(self, pointer: str) -> NodeSpan:
        nodes = self.parsed.nodes
        probe = pointer
        while probe not in nodes and probe:
            probe = parent_pointer(probe)
        return nodes.get(probe, NodeSpan(0))

    def _at(self, index: int, pointer: str) -> Location:
        line, column = self.lines.position(index)
        return Location(self.file, line, column, pointer)


_Reader = Callable[[str, int], ParsedText]

_FORMATS: dict[str, tuple[_Reader, re.Pattern[str]]] = {
    ".json": (read_json, JSON_LINE_BREAKS),
    ".yaml": (read_yaml, YAML_LINE_BREAKS),
    ".yml": (read_yaml, YAML_LINE_BREAKS),
}


def read_source(path: Path, file: str) -> tuple[SourceDocument | None, Diagnostics]:
    """Read and parse ``path``; ``file`` is the name diagnostics print for it.

    Any problem is one error diagnostic and no document.
    """
    diagnostics = Diagnostics()
    try:
        return parse_text(_read_text(path), path.suffix, file), diagnostics
    except UnreadableSource as problem:
        diagnostics.error(problem.location(file), problem.message)
        return None, diagnostics


def parse_text(text: str, suffix: str, file: str) -> SourceDocument:
    """Parse ``text`` in the format ``suffix`` names, or raise UnreadableSource."""
    reader, line_breaks = _format(suffix)
    lines = LineIndex(text, line_breaks)
    try:
        max_chars = max_document_chars()
    except ValueError as error:
        raise UnreadableSource(str(error)) from None
    try:
        return SourceDocument(file, text, lines, reader(text, max_chars))
    except SourceSyntaxError as error:
        raise UnreadableSource(error.message, lines.position(error.index)) from None
    except RecursionError:
        raise UnreadableSource("schema file is nested too deeply") from None


class UnreadableSource(Exception):
    """A file that cannot be read or parsed, and where it went wrong."""

    def __init__(self, message: str, position: tuple[int, int] = (1, 1)) -> None:
        super().__init__(message)
        self.message = message
        self.position = position

    def location(self, file: str) -> Location:
        return Location(file, *self.position)


def _format(suffix: str) -> tuple[_Reader, re.Pattern[str]]:
    try:
        return _FORMATS[suffix.lower()]
    except KeyError:
        raise UnreadableSource(
            f"unsupported schema file extension {quoted(suffix)}; expected .json, .yaml or .yml"
        ) from None


def _read_text(path: Path) -> str:
    _, line_breaks = _format(path.suffix)
    try:
        raw = read_input(path, max_document_bytes())
    except ValueError as error:  # the environment sets a bad limit
        raise UnreadableSource(str(error)) from None
    except OSError as error:
        raise UnreadableSource(
            f"cannot read schema file: {error.strerror or error}"
        ) from None
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        prefix = raw[: error.start].decode("utf-8-sig", errors="replace")
        position = LineIndex(prefix, line_breaks).position(len(prefix))
        raise UnreadableSource(
            "schema file is not valid UTF-8 text", position
        ) from None
