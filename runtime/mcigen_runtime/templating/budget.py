"""How much a template's loops may render: the bound on a call's text output.

A template renders by appending pieces to plain lists (its output, and the pieces
of a block whose whitespace is stripped). When it has loops, the compiled code
keeps in locals the ``limit``, the loop turns left, and, for each list a loop
writes to, how many characters of it were counted and the length past which it is
counted again (``out_chars``, ``out_recount``). Every loop, as it starts, charges
its turns: a loop over ``range(0, 10**12)`` stops the render before it starts, even
when it would render nothing (:func:`loops_too_long` words the error). Every turn
starts by comparing its list's length with its recount, and past it
:func:`counted` counts what the list gained since its last count. Between two
counts a list grows by at most ``STRIDE`` pieces and one turn's, each bounded by
the template's text and the values it reads; the joined text is checked at the end
(:func:`output_too_long` words the error).
"""

from __future__ import annotations

from .lookup import TemplateRuntimeError


class OutputLimitError(TemplateRuntimeError):
    """A template that renders more than its call may: the message says so."""


STRIDE = 32
"""How many pieces a list may gain between two counts (a list's first recount):
counting on every turn would double the cost of a short loop; between counts a list
grows by at most this many pieces and one turn's, each as long as the template's
text and the values it reads."""


def counted(pieces: list[str], chars: int, recount: int, limit: int) -> tuple[int, int]:
    """The ``(chars, recount)`` of ``pieces`` once what it gained since its last
    count is counted: its first ``recount - STRIDE`` pieces were, and hold ``chars``
    characters. Raise past ``limit`` characters."""
    chars += sum(map(len, pieces[recount - STRIDE :]))
    if chars > limit:
        raise output_too_long(limit)
    return chars, len(pieces) + STRIDE


def loops_too_long(limit: int) -> OutputLimitError:
    """The error of a render whose loops would take more than ``limit`` turns."""
    return OutputLimitError(
        f"Template loops exceed the limit of {limit} turns "
        "(text_output): the output is not returned"
    )


def output_too_long(limit: int) -> OutputLimitError:
    """The error of a render whose text is longer than ``limit`` characters."""
    return OutputLimitError(
        f"Template output exceeds the limit of {limit} characters "
        "(text_output): the output is not returned"
    )
