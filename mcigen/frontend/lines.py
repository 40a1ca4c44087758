"""Conversion between character indexes in a source text and 1-based line:column."""

from __future__ import annotations

import re
from bisect import bisect_right

# JSON only knows "\n" as a line break (and so do json's own error positions);
# YAML also breaks lines at "\r", NEL and the Unicode line/paragraph separators.
JSON_LINE_BREAKS = re.compile(r"\n")
YAML_LINE_BREAKS = re.compile("\r\n|[\r\n\x85\u2028\u2029]")


class LineIndex:
    """Line starts of a text, for turning character indexes into line:column."""

    def __init__(self, text: str, breaks: re.Pattern[str]) -> None:
        self._text = text
        self._starts = [0]
        self._ends: list[int] = []
        for match in breaks.finditer(text):
            self._ends.append(match.start())
            self._starts.append(match.end())
        self._ends.append(len(text))

    def line_of(self, index: int) -> int:
        """The 0-based line that holds character ``index``."""
        return bisect_right(self._starts, index) - 1

    def position(self, index: int) -> tuple[int, int]:
        """1-based (line, column) of character ``index``; columns count characters."""
        index = max(0, min(index, len(self._text)))
        line = self.line_of(index)
        return line + 1, index - self._starts[line] + 1

    def line_start(self, line: int) -> int:
        return self._starts[self._clamp(line)]

    def line_text(self, line: int) -> str:
        """The text of 0-based ``line`` without its line break."""
        line = self._clamp(line)
        return self._text[self._starts[line] : self._ends[line]]

    def _clamp(self, line: int) -> int:
        return max(0, min(line, len(self._starts) - 1))
