"""Example arguments for a tool, made at build time from its input schema for the
broker's ``meta_desc`` (:mod:`.leaf_examples` keeps those the schema accepts).

Each property gets its ``examples[0]``, else its ``default``, else, if it is
required, a value made to fit its schema:

- ``const``, else the first ``enum`` member of the property's type;
- a string: ``""``, or what ``minLength``, ``maxLength``, ``pattern`` (for patterns
  of literals, classes, groups, alternatives and repeats) and ``format`` (date,
  time, email, uri, uuid, ...) ask for;
- a number: ``0``, or else one next to a bound that fits ``minimum``,
  ``maximum``, ``exclusiveMinimum``, ``exclusiveMaximum`` (draft 4's booleans too)
  and ``multipleOf``;
- ``false``, ``null``; an array of ``minItems`` examples of its ``items`` (and
  ``prefixItems``, ``contains``); an object: the example of its own properties by
  these same rules, with optional ones added up to ``minProperties``.

Local ``$ref``s are followed, ``allOf`` is merged, and the alternatives of
``anyOf``/``oneOf`` are tried in turn (``null`` last). The schema's own
``examples[0]`` wins over all of that. When a required property cannot be given a
value that fits (bounds that leave nothing, a pattern too intricate), there is no
example: :func:`example_args` returns None.
"""

from __future__ import annotations

import copy
import math
import re
from collections.abc import Iterator, Mapping
from typing import Any, TypeGuard

from .pattern_sample import pattern_sample

_DEPTH = 8
"""How deep nested schemas and ``$ref`` chains are followed."""

_NONE: Any = object()
"""No value fits the schema."""

_FORMATS = {
    "date": "2024-01-31",
    "date-time": "2024-01-31T12:00:00Z",
    "time": "12:00:00Z",
    "duration": "P1D",
    "email": "user@example.com",
    "idn-email": "user@example.com",
    "hostname": "example.com",
    "idn-hostname": "example.com",
    "ipv4": "192.0.2.1",
    "ipv6": "2001:db8::1",
    "uri": "https://example.com/",
    "iri": "https://example.com/",
    "uri-reference": "https://example.com/",
    "iri-reference": "https://example.com/",
    "url": "https://example.com/",
    "uuid": "00000000-0000-4000-8000-000000000000",
    "json-pointer": "/a",
    "relative-json-pointer": "0",
    "regex": ".*",
}
"""A valid string of each format a validator may check."""

_JSON_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "array": (list,),
    "object": (dict,),
    "null": (type(None),),
}


def example_args(schema: Mapping[str, Any]) -> dict[str, Any] | None:
    """Arguments to start from, or None when the schema leaves none possible."""
    root_examples = schema.get("examples")
    if (
        isinstance(root_examples, list)
        and root_examples
        and isinstance(root_examples[0], dict)
    ):
        return copy.deepcopy(root_examples[0])
    for variant in _variants(schema, schema, 0):
        example = _object(variant, schema, 0)
        if example is not _NONE:
            result: dict[str, Any] = example
            return result
    return None


# -- schemas ---------------------------------------------------------------------


def _deref(node: Any, root: Mapping[str, Any]) -> Any:
    """``node`` with a local ``$ref`` replaced by its target, merged with the
    keywords beside it."""
    for _ in range(_DEPTH):
        if not isinstance(node, Mapping):
            return {}
        ref = node.get("$ref")
        if not (isinstance(ref, str) and ref.startswith("#")):
            return node
        target: Any = root
        for part in ref[1:].split("/"):
            if part and isinstance(target, Mapping):
                target = target.get(part.replace("~1", "/").replace("~0", "~"))
        siblings = {k: v for k, v in node.items() if k != "$ref"}
        node = _merge(target, siblings) if isinstance(target, Mapping) else target
    return {}


def _merge(first: Mapping[str, Any], second: Mapping[str, Any]) -> dict[str, Any]:
    """Both schemas' keywords: properties merged, required ones joined, the
    second's other keywords over the first's."""
    merged = {**first, **second}
    properties = {**(first.get("properties") or {}), **(second.get("properties") or {})}
    if properties:
        merged["properties"] = properties
    required = [*(first.get("required") or []), *(second.get("required") or [])]
    if required:
        merged["required"] = list(dict.fromkeys(required))
    return merged


def _variants(node: Any, root: Mapping[str, Any], depth: int) -> Iterator[Any]:
    """The plain schemas ``node`` allows: ``$ref`` followed, ``allOf`` merged, each
    alternative of ``anyOf``/``oneOf`` in turn (``null`` last)."""
    node = _deref(node, root)
    if depth > _DEPTH or not isinstance(node, Mapping):
        yield {}
        return
    base = {k: v for k, v in node.items() if k not in ("allOf", "anyOf", "oneOf")}
    parts = node.get("allOf")
    for part in parts if isinstance(parts, list) else ():
        for variant in _variants(part, root, depth + 1):
            base = _merge(base, variant)
            break
    choices = node.get("anyOf") or node.get("oneOf")
    if not isinstance(choices, list) or not choices:
        yield base
        return
    for choice in sorted(choices, key=lambda c: c == {"type": "null"}):
        for variant in _variants(choice, root, depth + 1):
            yield _merge(base, variant)


def _value(node: Any, root: Mapping[str, Any], depth: int) -> Any:
    """A value ``node`` accepts, or ``_NONE``."""
    if depth > _DEPTH:
        return _NONE
    for variant in _variants(node, root, depth):
        value = _made_up(variant, root, depth)
        if value is not _NONE:
            return value
    return _NONE


def _types(node: Mapping[str, Any]) -> list[str | None]:
    kind = node.get("type")
    if isinstance(kind, str):
        return [kind]
    if isinstance(kind, list) and kind:
        return sorted(kind, key=lambda k: k == "null")
    return ["object"] if isinstance(node.get("properties"), Mapping) else [None]


def _made_up(node: Mapping[str, Any], root: Mapping[str, Any], depth: int) -> Any:
    if "const" in node:
        return copy.deepcopy(node["const"])
    kinds = _types(node)
    enum = node.get("enum")
    if isinstance(enum, list) and enum:
        for member in enum:
            if any(kind is None or _is_a(member, kind) for kind in kinds):
                return copy.deepcopy(member)
        return _NONE
    for kind in kinds:
        if kind == "string":
            value = _string(node)
        elif kind in ("integer", "number"):
            value = _number(node, kind == "integer")
        elif kind == "array":
            value = _array(node, root, depth)
        elif kind == "object":
            value = _object(node, root, depth)
        else:  # a boolean, null, or any value at all
            value = False if kind == "boolean" else None
        if value is not _NONE:
            return value
    return _NONE


def _is_a(value: Any, kind: str) -> bool:
    if isinstance(value, bool) and kind in ("integer", "number"):
        return False
    if kind == "integer" and isinstance(value, float):
        return value.is_integer()
    return isinstance(value, _JSON_TYPES.get(kind, object))


# -- objects and arrays --------------------------------------------------------------


def _object(node: Mapping[str, Any], root: Mapping[str, Any], depth: int) -> Any:
    properties = node.get("properties")
    properties = properties if isinstance(properties, Mapping) else {}
    required = node.get("required")
    required = (
        [n for n in required if isinstance(n, str)]
        if isinstance(required, list)
        else []
    )
    required_names = set(required)
    example: dict[str, Any] = {}
    optional: dict[str, Any] = {}
    for name, raw in properties.items():
        given = _given(raw, root)
        if given is not _NONE:
            example[name] = given
        elif name in required_names:
            value = _value(raw, root, depth + 1)
            if value is _NONE:
                return _NONE
            example[name] = value
        else:
            optional[name] = raw
    undeclared = [name for name in required if name not in properties]
    if undeclared:
        extra = node.get("additionalProperties", {})
        for name in undeclared:
            value = _value(extra, root, depth + 1) if extra is not False else _NONE
            if value is _NONE:
                return _NONE
            example[name] = value
    wanted = node.get("minProperties")
    for name, raw in optional.items():
        if not isinstance(wanted, int) or len(example) >= wanted:
            break
        value = _value(raw, root, depth + 1)
        if value is not _NONE:
            example[name] = value
    if isinstance(wanted, int) and len(example) < wanted:
        return _NONE
    return example


def _given(raw: Any, root: Mapping[str, Any]) -> Any:
    """A property's own ``examples[0]`` or ``default`` (what it says itself first,
    then what its ``$ref`` points to)."""
    for prop in (raw if isinstance(raw, Mapping) else {}, _deref(raw, root)):
        examples = prop.get("examples")
        if isinstance(examples, list) and examples:
            return copy.deepcopy(examples[0])
        if "default" in prop:
            return copy.deepcopy(prop["default"])
    return _NONE


def _array(node: Mapping[str, Any], root: Mapping[str, Any], depth: int) -> Any:
    contains = node.get("contains")
    count = _int(node.get("minItems"), 0)
    if isinstance(contains, Mapping):
        count = max(count, _int(node.get("minContains"), 1))
    if count > _int(node.get("maxItems"), count):
        return _NONE
    prefix = node.get("prefixItems")
    prefix = prefix if isinstance(prefix, list) else []
    items = node.get("items")
    example = []
    for index in range(count):
        if index < len(prefix):
            item = prefix[index]
        elif isinstance(contains, Mapping) and not prefix:
            item = contains
        else:
            item = items if isinstance(items, Mapping) else {}
        value = _value(item, root, depth + 1)
        if value is _NONE:
            return _NONE
        example.append(value)
    if node.get("uniqueItems") is True and len(set(map(repr, example))) < count:
        return _NONE
    return example


def _int(value: Any, otherwise: int) -> int:
    return (
        value if isinstance(value, int) and not isinstance(value, bool) else otherwise
    )


# -- numbers ---------------------------------------------------------------------


def _number(node: Mapping[str, Any], integral: bool) -> Any:
    low, low_open = _bound(node, "minimum", "exclusiveMinimum", upper=False)
    high, high_open = _bound(node, "maximum", "exclusiveMaximum", upper=True)
    given_step = node.get("multipleOf")
    step: float | None = given_step if _is_number(given_step) else None
    if step is not None and step <= 0:
        step = None

    def fits(value: float) -> bool:
        if (
            value < low
            or value > high
            or (low_open and value == low)
            or (high_open and value == high)
        ):
            return False
        return step is None or _multiple(value, step)

    candidates: list[float] = [0]
    for bound in (low, high):
        if math.isfinite(bound):
            candidates += [bound, math.floor(bound) + 1, math.ceil(bound) - 1]
    if math.isfinite(low) and math.isfinite(high):
        candidates.append((low + high) / 2)
    if step is not None:  # the multiples next to each bound
        for bound, nearest in ((low, math.ceil), (high, math.floor)):
            if math.isfinite(bound):
                index = nearest(bound / step)
                candidates += [index * step, (index + 1) * step, (index - 1) * step]
    for candidate in candidates:
        if integral and not float(candidate).is_integer():
            continue
        value = int(candidate) if float(candidate).is_integer() else candidate
        if fits(value):
            return value
    return _NONE


def _bound(
    node: Mapping[str, Any], inclusive: str, exclusive: str, *, upper: bool
) -> tuple[float, bool]:
    """The bound on one side: its value (infinite when there is none) and whether
    it is exclusive. Draft 4's ``exclusiveMinimum: true`` makes ``minimum`` so."""
    value: float = math.inf if upper else -math.inf
    is_open = False
    given = node.get(inclusive)
    if _is_number(given):
        value, is_open = given, node.get(exclusive) is True
    other = node.get(exclusive)
    if _is_number(other) and (other <= value if upper else other >= value):
        value, is_open = other, True
    return value, is_open


def _is_number(value: Any) -> TypeGuard[float]:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _multiple(value: float, step: float) -> bool:
    """Whether ``value`` is a multiple of ``step``, as JSON Schema validators
    compute it."""
    if isinstance(value, int) and isinstance(step, int):
        return value % step == 0
    quotient = value / step
    return math.isfinite(quotient) and quotient == int(quotient)


# -- strings ---------------------------------------------------------------------


def _string(node: Mapping[str, Any]) -> Any:
    shortest = _int(node.get("minLength"), 0)
    longest = _int(node.get("maxLength"), max(shortest, 64))
    pattern = node.get("pattern")
    pattern = pattern if isinstance(pattern, str) else None
    form = node.get("format")
    if isinstance(form, str) and form in _FORMATS:
        candidates = [_FORMATS[form]]  # nothing else would be of its format
    else:
        matching = None if pattern is None else pattern_sample(pattern)
        candidates = (
            [] if matching is None else [matching, matching.ljust(shortest, "a")]
        )
        candidates += ["", "a" * shortest]
    for candidate in candidates:
        if not shortest <= len(candidate) <= longest:
            continue
        if pattern is None or _search(pattern, candidate):
            return candidate
    return _NONE


def _search(pattern: str, text: str) -> bool:
    try:
        return re.search(pattern, text) is not None
    except re.error:
        return False
