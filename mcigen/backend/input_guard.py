"""A fast check that lets valid input skip pydantic.

For an input schema of plain properties (strings, integers, numbers, booleans, enums
of those, arrays of those, no constraints but numeric bounds) the generated code
first evaluates a doubt: an expression over ``raw`` that is false only for input the
pydantic model accepts. A call whose input raises no doubt skips validation (and
never imports the model: see ``backend/tools.py``); any other is validated by the
model, which raises the usual ``ToolInputError``. The doubt may be wider than the model's
refusals (``None`` for an optional property goes the slow way) but never narrower.
A large enum is tested against its members' name (``enum_data.py``), never spelled out.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, NamedTuple

from .enum_data import Path, enum_names
from .pysource import literal

Doubt = Callable[[str, str], str]
"""A doubt about one value, from two expressions of it: ``v`` where it may be
missing, ``w`` where it is known to be there. Values from the schema are joined in
as literals after the expressions, never spliced into text that is searched again."""

_PROPERTY_KEYS = frozenset(
    {"type", "description", "title", "default", "enum", "examples", "format"}
)
"""``format`` is an annotation: the model types a ``date`` as any string."""
_SCHEMA_KEYS = frozenset(
    {"type", "properties", "required", "title", "description", "$schema"}
)
_BOUNDS = {
    "minimum": "<",
    "maximum": ">",
    "exclusiveMinimum": "<=",
    "exclusiveMaximum": ">=",
}
"""A number's bounds, each with the comparison that puts a value beyond it."""
_NUMBER_KEYS = _PROPERTY_KEYS | _BOUNDS.keys()
_TYPE_DOUBTS: dict[str, Doubt] = {
    "string": lambda v, w: f"type({v}) is not str",
    "integer": lambda v, w: f"type({v}) is not int",
    "number": lambda v, w: f"type({v}) is not float and type({v}) is not int",
    "boolean": lambda v, w: f"type({v}) is not bool",
}
_ITEM_SETS = {
    "string": ("_STR_ITEMS", "str"),
    "integer": ("_INT_ITEMS", "int"),
    "number": ("_NUMBER_ITEMS", "float, int"),
    "boolean": ("_BOOL_ITEMS", "bool"),
}
"""By the items' schema type, the name a group module binds to the set of the exact
types an array's items may have, and those types: the set tests a list's item types
in C (``issuperset`` over ``map(type, ...)``), a fifth of what a generator over the
items costs for three of them, and is made once, not on every call."""


class InputDoubt(NamedTuple):
    expression: str
    """False only for input the model accepts; "" when no mapping can be invalid."""
    item_sets: frozenset[str]
    """The names of the item types' sets the expression reads (``item_set_bindings``)."""


def item_set_bindings(names: frozenset[str]) -> str:
    """The source that binds the item types' sets ``names`` in a group module."""
    return "".join(
        f"{name} = frozenset({{{types}}})\n"
        for name, types in sorted(_ITEM_SETS.values())
        if name in names
    )


def input_doubt(schema: dict[str, Any], model_name: str) -> InputDoubt | None:
    """The doubt for ``schema`` (the input of model ``model_name``), or None when
    the schema is not plain enough for one (the model always validates)."""
    if not _plain_schema(schema):
        return None
    properties: dict[str, Any] = schema.get("properties") or {}
    required = set(schema.get("required") or ())
    if not required <= set(properties):
        return None
    large_enums = enum_names(schema, model_name)
    item_sets: set[str] = set()
    doubts = []
    for name, prop in properties.items():
        doubt = _property_doubt(prop, ("properties", name), large_enums, item_sets)
        if doubt is None:
            return None
        key = literal(name)
        if name in required:  # the key may be missing, but not once it is a list
            doubts.append(doubt(f"raw.get({key})", f"raw[{key}]"))
        else:
            given = doubt(f"raw[{key}]", f"raw[{key}]")
            doubts.append(f"{key} in raw and ({given})")
    return InputDoubt(" or ".join(doubts), frozenset(item_sets))


def _plain_schema(schema: dict[str, Any]) -> bool:
    extra = set(schema) - _SCHEMA_KEYS
    allows_extra = (
        extra <= {"additionalProperties"}
        and schema.get("additionalProperties", True) is True
    )
    return schema.get("type", "object") == "object" and allows_extra


def _property_doubt(
    prop: Any, path: Path, large_enums: dict[Path, str], item_sets: set[str]
) -> Doubt | None:
    """``path``: where ``prop`` is in the input schema, whose large enums are named
    in ``large_enums``; the item types' sets the doubt reads are added to
    ``item_sets``."""
    if isinstance(prop, dict) and prop.get("type") == "array":
        return _array_doubt(prop, path, large_enums, item_sets)
    if not isinstance(prop, dict):
        return None
    kind = prop.get("type")
    if not isinstance(kind, str) or kind not in _TYPE_DOUBTS:
        return None
    numeric = kind in ("integer", "number")
    if not set(prop) <= (_NUMBER_KEYS if numeric else _PROPERTY_KEYS):
        return None
    of_type = _TYPE_DOUBTS[kind]
    beyond = _beyond_bounds(prop)
    if beyond is None:
        return None
    enum = prop.get("enum")
    listed = None
    if enum is not None:
        if not enum or not all(_fits(value, kind) for value in enum):
            return None
        listed = large_enums[path] if path in large_enums else literal(tuple(enum))

    def doubt(v: str, w: str) -> str:
        member = f" or {v} not in {listed}" if listed is not None else ""
        # ``w``: the key is there once the type is known (and mypy would refuse
        # to compare None)
        return of_type(v, w) + member + "".join(f" or {w} {b}" for b in beyond)

    return doubt


def _beyond_bounds(prop: dict[str, Any]) -> list[str] | None:
    """A comparison with each bound of ``prop`` that is true beyond it (``< 0``),
    or None when a bound is not a finite number (draft 4's boolean
    ``exclusiveMinimum``, say): the model judges those."""
    beyond = []
    for key, comparison in _BOUNDS.items():
        if key not in prop:
            continue
        bound = prop[key]
        if type(bound) not in (int, float) or not math.isfinite(bound):
            return None
        beyond.append(f"{comparison} {literal(bound)}")
    return beyond


def _array_doubt(
    prop: dict[str, Any],
    path: Path,
    large_enums: dict[Path, str],
    item_sets: set[str],
) -> Doubt | None:
    """A list whose every item is a plain value; no doubt for its items is needed
    when ``items`` is left out (any item goes)."""
    if not set(prop) <= _PROPERTY_KEYS | {"items"} or "enum" in prop:
        return None
    items = prop.get("items", {})
    if items == {}:
        return lambda v, w: f"type({v}) is not list"
    item_doubt = _property_doubt(items, (*path, "items"), large_enums, item_sets)
    if item_doubt is None or (isinstance(items, dict) and items.get("type") == "array"):
        return None
    if "enum" not in items and not items.keys() & _BOUNDS.keys():
        item_set = _ITEM_SETS[items["type"]][0]
        item_sets.add(item_set)
        return lambda v, w: (
            f"type({v}) is not list or not {item_set}.issuperset(map(type, {w}))"
        )
    each = item_doubt("item", "item")
    return lambda v, w: f"type({v}) is not list or any({each} for item in {w})"


def _fits(value: Any, kind: str) -> bool:
    """Whether an enum value is of the property's own type (an enum mixing types is
    left to the model)."""
    if kind == "string":
        return type(value) is str
    if kind == "integer":
        return type(value) is int
    return False
