"""Whether a property's ``default`` meets the property's own constraints: the input
model checks a default as it checks a value given, so one that breaks them makes
every call that leaves the property out fail."""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterator
from typing import Any

from pydantic_core import SchemaError, SchemaValidator, ValidationError, core_schema

_BOUNDS: tuple[tuple[str, Callable[[Any, Any], bool]], ...] = (
    ("minimum", operator.ge),
    ("maximum", operator.le),
    ("exclusiveMinimum", operator.gt),
    ("exclusiveMaximum", operator.lt),
)
_SIZES: tuple[tuple[str, type, Callable[[Any, Any], bool]], ...] = (
    ("minLength", str, operator.ge),
    ("maxLength", str, operator.le),
    ("minItems", list, operator.ge),
    ("maxItems", list, operator.le),
)


def default_breaks(schema: dict[str, Any], default: object) -> Iterator[str]:
    """The keywords of ``schema`` that ``default`` breaks, in schema order."""
    for keyword in schema:
        if _breaks(keyword, schema[keyword], default):
            yield keyword


def _breaks(keyword: str, limit: object, value: object) -> bool:
    if keyword == "enum":
        return isinstance(limit, list) and not any(_same(value, v) for v in limit)
    if keyword == "const":
        return not _same(value, limit)
    if keyword == "pattern":
        return (
            isinstance(value, str)
            and isinstance(limit, str)
            and _unmatched(limit, value)
        )
    for name, compare in _BOUNDS:
        if keyword == name:
            return _number(value) and _number(limit) and not compare(value, limit)
    for name, kind, compare in _SIZES:
        if keyword == name and isinstance(value, kind) and _number(limit):
            return not compare(len(value), limit)  # type: ignore[arg-type]
    return False


def _number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _same(a: object, b: object) -> bool:
    """JSON's equality: ``true`` is not ``1``."""
    return isinstance(a, bool) == isinstance(b, bool) and a == b


def _unmatched(pattern: str, value: str) -> bool:
    """As the input model's ``Field(pattern=...)`` reads it (pydantic-core's regex)."""
    try:
        SchemaValidator(core_schema.str_schema(pattern=pattern)).validate_python(value)
    except ValidationError:
        return True
    except SchemaError:  # the meta-schema check reports a pattern that cannot be used
        return False
    return False
