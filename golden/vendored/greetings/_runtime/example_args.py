"""Example arguments for a tool, from its input schema: each property's
``examples[0]``, else its ``default``, else, if it is required, a placeholder (its
``const``, its first ``enum`` value, or by type ``""``, ``0``, ``false``, ``[]``, and for
an object the example of its own properties, by the same rules); the schema's own
``examples[0]`` wins over all of that. Local ``$ref``s and ``anyOf``/``oneOf`` are
followed.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

_PLACEHOLDERS: dict[str, Any] = {
    "string": "",
    "integer": 0,
    "number": 0,
    "boolean": False,
    "array": [],
    "object": {},
    "null": None,
}


def example_args(schema: Mapping[str, Any]) -> dict[str, Any]:
    """Arguments to start from: each property's first example, else its default,
    else (when required) a placeholder of its type; other properties are left out."""
    root_examples = schema.get("examples")
    if (
        isinstance(root_examples, list)
        and root_examples
        and isinstance(root_examples[0], dict)
    ):
        return copy.deepcopy(root_examples[0])
    return _object_example(schema, schema, 0)


def _resolve(node: Any, root: Mapping[str, Any]) -> Mapping[str, Any]:
    """Follow local ``$ref``s (``#/$defs/X``), and take the first alternative of
    ``anyOf``/``oneOf``/``allOf`` that is not ``null``."""
    for _ in range(8):
        if not isinstance(node, Mapping):
            return {}
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#"):
            target: Any = root
            for part in ref[1:].split("/"):
                if part and isinstance(target, Mapping):
                    target = target.get(part.replace("~1", "/").replace("~0", "~"))
            node = target
            continue
        if "type" not in node:
            for keyword in ("anyOf", "oneOf", "allOf"):
                options = node.get(keyword)
                if isinstance(options, list) and options:
                    choices = [o for o in options if o != {"type": "null"}]
                    node = (choices or options)[0]
                    break
            else:
                return node
            continue
        return node
    return {}


def _object_example(
    schema: Mapping[str, Any], root: Mapping[str, Any], depth: int
) -> dict[str, Any]:
    properties = schema.get("properties")
    if not isinstance(properties, Mapping):
        return {}
    required = schema.get("required")
    required_names = set(required) if isinstance(required, list) else set()
    example: dict[str, Any] = {}
    for name, raw in properties.items():
        # What the property says itself wins over what its $ref points to.
        for prop in (raw if isinstance(raw, Mapping) else {}, _resolve(raw, root)):
            examples = prop.get("examples")
            if isinstance(examples, list) and examples:
                example[name] = copy.deepcopy(examples[0])
                break
            if "default" in prop:
                example[name] = copy.deepcopy(prop["default"])
                break
        else:
            if name in required_names:
                example[name] = _placeholder(_resolve(raw, root), root, depth + 1)
    return example


def _placeholder(prop: Mapping[str, Any], root: Mapping[str, Any], depth: int) -> Any:
    if "const" in prop:
        return copy.deepcopy(prop["const"])
    enum = prop.get("enum")
    if isinstance(enum, list) and enum:
        return copy.deepcopy(enum[0])
    kind = prop.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), kind[0] if kind else None)
    if kind is None and isinstance(prop.get("properties"), Mapping):
        kind = "object"
    if kind == "object" and depth < 8:
        return _object_example(prop, root, depth)
    return copy.deepcopy(_PLACEHOLDERS.get(kind)) if isinstance(kind, str) else None


# -- truncation ---------------------------------------------------------------------
