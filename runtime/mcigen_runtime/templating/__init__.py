"""Templating: the one grammar of MCI templates (:mod:`.syntax`, :mod:`.parser`),
its compiler into Python (:mod:`.compiler`: at build time for the schema's
templates, at call time for file contents), the lookups and comparisons compiled
templates make (:mod:`.lookup`), and the budget their output is written into
(:mod:`.budget`).

This package is also a face: generated code imports what compiled templates call
from it (``from mcigen_runtime.templating import first``), never from its modules.
"""

from __future__ import annotations

from .budget import counted, loops_too_long, output_too_long
from .lookup import (
    NOTHING,
    UNBOUND,
    Entry,
    TemplateRuntimeError,
    Value,
    compare,
    first,
    foreach_items,
    items_of,
    member,
    native,
    operand,
    range_bound,
    restore,
    strip_pieces,
    truthy,
    value_or_none,
)

__all__ = [
    "NOTHING",
    "UNBOUND",
    "Entry",
    "TemplateRuntimeError",
    "Value",
    "compare",
    "counted",
    "first",
    "foreach_items",
    "items_of",
    "loops_too_long",
    "member",
    "native",
    "operand",
    "output_too_long",
    "range_bound",
    "restore",
    "strip_pieces",
    "truthy",
    "value_or_none",
]
