"""How much a template's loops may render: the bound on a call's text output.

A template renders by appending pieces to lists (its output, and the pieces of a
block whose whitespace is stripped). Every turn of a loop counts what was appended
since the last turn to the lists the loop writes to, and the turns themselves: a
loop over ``range(0, 10**12)`` stops after ``limit`` turns even when it renders
nothing. Text outside loops is bounded by the template and the values it reads.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TypeVar

from .lookup import TemplateRuntimeError

_Item = TypeVar("_Item")


class OutputLimitError(TemplateRuntimeError):
    """A template that renders more than its call may: the message says so."""


class OutputBudget:
    __slots__ = ("limit", "_turns_left", "_counted")

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._turns_left = limit
        self._counted: dict[int, tuple[list[str], int, int]] = {}
        """id of a list -> (the list, kept alive so that its id stays its own; how
        many of its pieces were counted; their characters)."""

    def each(self, items: Iterable[_Item], out: list[str]) -> Iterator[_Item]:
        """``items``, stopping the render once the loop has run ``limit`` turns or
        ``out`` holds more than ``limit`` characters."""
        for item in items:
            self._turns_left -= 1
            if self._turns_left < 0:
                raise OutputLimitError(
                    f"Template loops exceed the limit of {self.limit} turns "
                    "(text_output): the output is not returned"
                )
            self._count(out)
            yield item
        self._count(out)

    def _count(self, out: list[str]) -> None:
        _, done, chars = self._counted.get(id(out), (out, 0, 0))
        if done == len(out):
            return
        chars += sum(map(len, out[done:]))  # a slice: islice would walk from 0
        if chars > self.limit:
            raise OutputLimitError(
                f"Template output exceeds the limit of {self.limit} characters "
                "(text_output): the output is not returned"
            )
        self._counted[id(out)] = (out, len(out), chars)
