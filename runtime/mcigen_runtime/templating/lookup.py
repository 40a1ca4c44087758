"""Value lookup at call time, with mci-py's error messages.

Compiled templates (and the interpreter mcigen's tests hold them to) share these
helpers: a path is a tuple of keys, a fallback literal a plain string. Loop variables
live in the same context mapping as ``props``, ``env`` and ``input``; a variable
iterating a dict is bound to an :class:`Entry`, whose ``key`` is the key and whose
value stands for it elsewhere.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


class TemplateRuntimeError(Exception):
    """A template that cannot be rendered with the values given; the message is the result."""


class PlaceholderError(TemplateRuntimeError):
    """A placeholder none of whose alternatives resolved."""


class _PathError(Exception):
    pass


class Entry:
    """One member of a dict being iterated by ``@foreach``."""

    __slots__ = ("key", "value")

    def __init__(self, key: Any, value: Any) -> None:
        self.key = key
        self.value = value

    # A placeholder of the loop variable shows the value: compiled code formats
    # the entry itself, without testing on every turn whether it is one.
    def __str__(self) -> str:
        return str(self.value)

    def __format__(self, spec: str) -> str:
        return format(self.value, spec)


_NOTHING: Any = object()
NOTHING: Any = _NOTHING
"""What :func:`member` gives for a key that is not there."""

Alternatives = tuple[tuple[str, ...] | str, ...]


def _walk(
    context: Mapping[str, Any], parts: tuple[str, ...], why: list[str] | None = None
) -> Any:
    """The value at ``parts``, or ``_NOTHING`` (and, into ``why``, mci-py's reason).

    Raising nothing makes fallback chains cheap; the reason is only worded on request.
    """
    current: Any = context
    for index, part in enumerate(parts):
        if isinstance(current, Entry):
            if part == "key":
                current = current.key
                continue
            current = current.value
        if not isinstance(current, dict) and not (
            index <= 1 and isinstance(current, Mapping)
        ):
            if why is not None:
                where = ".".join(parts[:index])
                why.append(f"Cannot access '{part}' on non-dict value at '{where}'")
            return _NOTHING
        if part not in current:
            if why is not None:
                path = ".".join(parts)
                why.append(f"Path '{path}' not found in context (missing '{part}')")
            return _NOTHING
        current = current[part]
    return current.value if isinstance(current, Entry) else current


def member(value: Any, key: str) -> Any:
    """``value.key`` as a two-part path ``var.key`` reads it when ``var`` is a loop
    variable holding ``value``, or :data:`NOTHING` (the compiled form of ``_walk``
    for that case; a test holds the two to the same answers)."""
    if type(value) is dict:  # the common case, without the Mapping ABC's check
        found = value.get(key, _NOTHING)
        return found.value if type(found) is Entry else found
    if isinstance(value, Entry):
        if key == "key":
            return value.key
        value = value.value
    if not isinstance(value, Mapping) or key not in value:
        return _NOTHING
    found = value[key]
    return found.value if isinstance(found, Entry) else found


def _failure(context: Mapping[str, Any], parts: tuple[str, ...]) -> str:
    why: list[str] = []
    _walk(context, parts, why)
    return why[0]


def resolve_path(context: Mapping[str, Any], parts: tuple[str, ...]) -> Any:
    """The value at ``parts`` in ``context``; ``context["env"]`` may be any mapping."""
    value = _walk(context, parts)
    if value is _NOTHING:
        raise _PathError(_failure(context, parts))
    return value


def _first_of(
    context: Mapping[str, Any], alternatives: Alternatives
) -> tuple[Any, list[str]]:
    """The first alternative's value (``_NOTHING`` if none resolves) and, then, why."""
    for alternative in alternatives:
        if isinstance(alternative, str):
            return alternative, []
        value = _walk(context, alternative)
        if value is not _NOTHING:
            return value, []
    errors = [
        f"{'.'.join(alt)}: {_failure(context, alt)}"
        for alt in alternatives
        if not isinstance(alt, str)
    ]
    return _NOTHING, errors


def first(context: Mapping[str, Any], source: str, alternatives: Alternatives) -> Any:
    """The first alternative that resolves; a ``str`` alternative is a literal."""
    value, errors = _first_of(context, alternatives)
    if value is _NOTHING:
        tried = ", ".join(
            alt if isinstance(alt, str) else ".".join(alt) for alt in alternatives
        )
        raise PlaceholderError(
            f"Failed to resolve placeholder '{{{{{source}}}}}': Could not resolve any "
            f"alternative. Tried: {tried}. Errors: {'; '.join(errors)}"
        )
    return value


def native(context: Mapping[str, Any], raw: str, alternatives: Alternatives) -> Any:
    """The value of a JSON-native ``{!! path !!}`` string (``raw``), type and all."""
    value, errors = _first_of(context, alternatives)
    if value is _NOTHING:
        reasons = "; ".join(error.split(": ", 1)[1] for error in errors)
        raise TemplateRuntimeError(
            f"Failed to resolve JSON-native placeholder '{raw}': {reasons}"
        )
    return value


def value_or_none(context: Mapping[str, Any], parts: tuple[str, ...]) -> Any:
    """The value at ``parts``, or None when it does not resolve (how cli flags read)."""
    value = _walk(context, parts)
    return None if value is _NOTHING else value


def foreach_items(context: Mapping[str, Any], parts: tuple[str, ...]) -> list[Any]:
    """What ``@foreach`` iterates at ``parts``."""
    try:
        items = resolve_path(context, parts)
    except _PathError as error:
        raise TemplateRuntimeError(
            f"Failed to resolve foreach path '{'.'.join(parts)}': {error}"
        ) from None
    return items_of(items)


def items_of(value: Any) -> list[Any]:
    """A list's items, or a dict's members as entries: what ``@foreach`` iterates."""
    if isinstance(value, list):
        return value
    if isinstance(value, dict):
        return [Entry(key, member) for key, member in value.items()]
    raise TemplateRuntimeError(
        f"@foreach requires an array or object, got {type(value).__name__}"
    )


def range_bound(context: Mapping[str, Any], parts: tuple[str, ...]) -> int:
    """An ``@for`` bound given as a path: it must hold an integer."""
    try:
        value = resolve_path(context, parts)
    except _PathError as error:
        raise TemplateRuntimeError(
            f"Failed to resolve @for bound '{'.'.join(parts)}': {error}"
        ) from None
    if not isinstance(value, int) or isinstance(value, bool):
        raise TemplateRuntimeError(
            f"@for range bounds must be integers, got {type(value).__name__}"
        )
    return value


def operand(context: Mapping[str, Any], parts: tuple[str, ...]) -> Any:
    """A path in a condition: its value, or (as in mci-py) its own text when it has none."""
    value = _walk(context, parts)
    return ".".join(parts) if value is _NOTHING else value


def truthy(context: Mapping[str, Any], parts: tuple[str, ...]) -> bool:
    """``@if(path)``: the value's truth; a path that does not resolve is false."""
    value = _walk(context, parts)
    return value is not _NOTHING and bool(value)


_NUMBERS = (int, float)
"""What ordering compares (a tuple: ``isinstance`` checks one faster than a union)."""


def compare(left: Any, operator: str, right: Any) -> bool:
    """``left operator right`` as mci-py evaluates it; ordering needs two numbers."""
    if operator == "==":
        return bool(left == right)
    if operator == "!=":
        return bool(left != right)
    if not (isinstance(left, _NUMBERS) and isinstance(right, _NUMBERS)):
        raise TemplateRuntimeError(
            f"Cannot compare types '{type(left).__name__}' and "
            f"'{type(right).__name__}' with '{operator}'"
        )
    if operator == ">":
        return left > right
    if operator == "<":
        return left < right
    if operator == ">=":
        return left >= right
    return left <= right


UNBOUND: Any = object()
"""What a loop variable's name was bound to before the loop, when nothing was."""


def restore(context: dict[str, Any], name: str, saved: Any) -> None:
    """Undo a loop's binding of ``name`` once the loop is over."""
    if saved is UNBOUND:
        context.pop(name, None)
    else:
        context[name] = saved


class Value(str):
    """Text that came from a value: whitespace stripping of ``@if`` bodies stops at it."""

    __slots__ = ()


def strip_pieces(pieces: list[str]) -> list[str]:
    """``pieces`` without the whitespace around them that belongs to the template's
    own text; a :class:`Value` is never stripped, nor anything beyond one."""
    stripped = list(pieces)
    index = 0
    while index < len(stripped) and not isinstance(stripped[index], Value):
        stripped[index] = stripped[index].lstrip()
        if stripped[index]:
            break
        index += 1
    index = len(stripped) - 1
    while index >= 0 and not isinstance(stripped[index], Value):
        stripped[index] = stripped[index].rstrip()
        if stripped[index]:
            break
        index -= 1
    return stripped
