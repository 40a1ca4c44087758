"""A string a regular expression matches, made at build time for the example
arguments of a tool whose schema asks for a ``pattern``.

Patterns made of literals, classes, groups, alternatives and repeats are followed
through Python's own parser of regular expressions (``re._parser``, private, and
so read only by the compiler, never at call time); anchors and lookarounds are
skipped and left to the caller's check.
"""

from __future__ import annotations

from collections.abc import Callable
from re import _parser  # type: ignore[attr-defined]
from typing import Any


def pattern_sample(pattern: str) -> str | None:
    """A short string ``pattern`` likely matches (None: a pattern this cannot
    follow). The caller checks that it does."""
    try:
        return _emit(_parser.parse(pattern))
    except Exception:  # a pattern this cannot follow
        return None


_CLASS_SAMPLES = "a0A_ -.~"
"""Characters tried, in turn, for a character class."""


def _emit(items: Any) -> str:
    text = []
    for op, arg in items:
        name = str(op)
        if name == "LITERAL":
            text.append(chr(arg))
        elif name == "NOT_LITERAL":
            text.append("a" if arg != ord("a") else "b")
        elif name == "ANY":
            text.append("a")
        elif name == "IN":
            text.append(next(c for c in _CLASS_SAMPLES if _in_class(c, arg)))
        elif name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
            low, _high, sub = arg
            text.append(_emit(sub) * low)
        elif name == "SUBPATTERN":
            text.append(_emit(arg[-1]))
        elif name == "ATOMIC_GROUP":
            text.append(_emit(arg))
        elif name == "BRANCH":
            text.append(_emit(arg[1][0]))
        elif name in ("AT", "ASSERT", "ASSERT_NOT"):
            continue  # an anchor or a lookaround: the final check decides
        else:
            raise ValueError(f"cannot follow {name}")
    return "".join(text)


_CATEGORIES: dict[str, Callable[[str], bool]] = {
    "CATEGORY_DIGIT": str.isdigit,
    "CATEGORY_NOT_DIGIT": lambda c: not c.isdigit(),
    "CATEGORY_SPACE": str.isspace,
    "CATEGORY_NOT_SPACE": lambda c: not c.isspace(),
    "CATEGORY_WORD": lambda c: c.isalnum() or c == "_",
    "CATEGORY_NOT_WORD": lambda c: not (c.isalnum() or c == "_"),
}


def _in_class(char: str, members: Any) -> bool:
    negated = bool(members) and str(members[0][0]) == "NEGATE"
    found = False
    for op, arg in members[1:] if negated else members:
        name = str(op)
        if name == "LITERAL":
            found = char == chr(arg)
        elif name == "RANGE":
            found = arg[0] <= ord(char) <= arg[1]
        elif name == "CATEGORY":
            found = _CATEGORIES[str(arg)](char)
        else:
            raise ValueError(f"cannot follow {name} in a class")
        if found:
            break
    return found != negated
