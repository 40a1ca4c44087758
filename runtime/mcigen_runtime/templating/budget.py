"""How much a template's loops may render: the bound on a call's text output.

A template renders by appending pieces to lists (its output, and the pieces of a
block whose whitespace is stripped); when it has loops, those lists are
:class:`Output` lists that know how much of them was counted, and the compiled
code keeps, in locals, the ``limit`` and the loop ``turns`` left. Every loop, as it
starts, charges its turns: a loop over ``range(0, 10**12)`` stops the render
before it starts, even when it would render nothing. A loop starts without a call
when its turns are left and the list it writes to, with as many pieces more as the
loop has turns, stays within ``_STRIDE`` pieces of its last count; otherwise it
goes through :func:`checked_loop`, which counts the list, and a long loop counts
again every few dozen pieces. Between two counts a list grows by at most a few
dozen pieces and one short loop's turns, each piece bounded by the template's text
and the values it reads; the joined text is checked at the end
(:func:`output_too_long` words the error).
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
    """A list of rendered pieces: those before ``recount - _STRIDE`` were counted
    and hold ``chars`` characters. A loop may start without counting while the
    list's length and its turns stay within ``recount``."""

    recount = _STRIDE  # class defaults: an instance is made at C speed
    chars = 0


def checked_loop(
    items: Sequence[_Item], turns: int, out: Output, turns_left: int, limit: int
) -> Iterable[_Item]:
    """``items`` (a list or a range of ``turns`` turns) to loop over, for a loop
    that may not start without a check: ``out`` is counted, the ``turns_left``
    (after this loop's) must not be negative, and a loop of more than ``_STRIDE``
    turns counts ``out`` again as it goes."""
    _count(out, limit)
    if turns_left < 0:
        raise OutputLimitError(
            f"Template loops exceed the limit of {limit} turns "
            "(text_output): the output is not returned"
        )
    return items if turns <= _STRIDE else _counting(items, out, limit)


def output_too_long(limit: int) -> OutputLimitError:
    """The error of a render whose text is longer than ``limit`` characters."""
    return OutputLimitError(
        f"Template output exceeds the limit of {limit} characters "
        "(text_output): the output is not returned"
    )


def _counting(items: Sequence[_Item], out: Output, limit: int) -> Iterator[_Item]:
    for item in items:
        if len(out) > out.recount:
            _count(out, limit)
        yield item


def _count(out: Output, limit: int) -> None:
    """Count what ``out`` gained since it was last counted."""
    out.chars += sum(map(len, out[out.recount - _STRIDE :]))
    out.recount = len(out) + _STRIDE
    if out.chars > limit:
        raise output_too_long(limit)
