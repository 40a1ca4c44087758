"""How much a template's loops may render: the bound on a call's text output.

A template renders by appending pieces to lists (its output, and the pieces of a
block whose whitespace is stripped); when it has loops, those lists are
:class:`Output` lists that know how much of them was counted. Every loop, as it
starts, charges its turns: a loop over ``range(0, 10**12)`` stops the render
before it starts, even when it would render nothing. It also counts what was
appended to the list it writes to since the last count, when that is more than a
few dozen pieces, and a long loop counts again every few dozen pieces. Between two
counts a list grows by at most a few dozen pieces and one short loop's turns, each
piece bounded by the template's text and the values it reads; the joined text is
checked at the end.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import TypeVar

from .lookup import TemplateRuntimeError

_Item = TypeVar("_Item")


class OutputLimitError(TemplateRuntimeError):
    """A template that renders more than its call may: the message says so."""


_STRIDE = 32
"""How many pieces a list may gain between two counts: counting on every turn
would double the cost of a short loop; between counts a list grows by at most this
many pieces, each as long as the template's text and the values it reads."""


class Output(list[str]):
    """A list of rendered pieces: the first ``counted`` hold ``chars`` characters."""

    counted = 0  # class defaults: an instance is made at C speed
    chars = 0


class OutputBudget:
    __slots__ = ("limit", "_turns_left")

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._turns_left = limit

    def each(self, items: Sequence[_Item], out: list[str]) -> Iterable[_Item]:
        """``items`` (a list or a range) to loop over, once the turns are charged
        and ``out`` (an :class:`Output`) is counted if it gained more than
        ``_STRIDE`` pieces since its last count: a loop of more turns than are left,
        or an ``out`` of more than ``limit`` characters, stops the render. A long
        loop counts ``out`` again as it goes. (Counting a few pieces at every loop's
        start was a sixth of a short loop template's call.)"""
        assert isinstance(out, Output)
        if len(out) - out.counted > _STRIDE:
            self._count(out)
        try:
            turns = len(items)
        except OverflowError:  # a range longer than sys.maxsize
            turns = self._turns_left + 1
        self._turns_left -= turns
        if self._turns_left < 0:
            raise OutputLimitError(
                f"Template loops exceed the limit of {self.limit} turns "
                "(text_output): the output is not returned"
            )
        return items if turns <= _STRIDE else self._counting(items, out)

    def text(self, out: list[str]) -> str:
        """What ``out`` holds, joined, if it is within ``limit`` characters (the
        loops kept what was not counted yet to a few dozen pieces)."""
        text = "".join(out)
        if len(text) > self.limit:
            raise self._too_long()
        return text

    def _counting(self, items: Sequence[_Item], out: Output) -> Iterator[_Item]:
        for item in items:
            if len(out) - out.counted > _STRIDE:
                self._count(out)
            yield item

    def _count(self, out: Output) -> None:
        """Count what ``out`` gained since it was last counted."""
        out.chars += sum(map(len, out[out.counted :]))
        out.counted = len(out)
        if out.chars > self.limit:
            raise self._too_long()

    def _too_long(self) -> OutputLimitError:
        return OutputLimitError(
            f"Template output exceeds the limit of {self.limit} characters "
            "(text_output): the output is not returned"
        )
