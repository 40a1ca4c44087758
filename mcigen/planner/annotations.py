"""Python type annotations for JSON Schema property schemas, as written in signatures."""

from __future__ import annotations

from typing import Any

from mcigen_runtime.templating.pyliteral import literal

from ..large_enums import large_enum_kind

_SIMPLE = {
    "string": "str",
    "integer": "int",
    "number": "float",
    "boolean": "bool",
    "object": "dict[str, Any]",
    "null": "None",
}


def annotation(schema: Any) -> str:
    """The annotation for a property schema; ``Any`` where JSON Schema says more than types can."""
    if not isinstance(schema, dict):
        return "Any"
    if "const" in schema:
        return _literal([schema["const"]])
    large = large_enum_kind(schema)
    if large is not None:
        return _SIMPLE[large]
    if isinstance(schema.get("enum"), list) and schema["enum"]:
        return _literal(schema["enum"])
    variants = schema.get("anyOf") or schema.get("oneOf")
    if isinstance(variants, list) and variants:
        return _union([annotation(v) for v in variants])
    kind = schema.get("type")
    if isinstance(kind, list):
        return _union([_single_type(k, schema) for k in kind])
    return _single_type(kind, schema)


def _single_type(kind: Any, schema: dict[str, Any]) -> str:
    if kind == "array":
        items = schema.get("items")
        return f"list[{annotation(items)}]" if isinstance(items, dict) else "list[Any]"
    return _SIMPLE.get(kind, "Any") if isinstance(kind, str) else "Any"


def _literal(values: list[Any]) -> str:
    if all(isinstance(v, str | int | bool) or v is None for v in values):
        return "Literal[" + ", ".join(literal(v) for v in values) + "]"
    return "Any"


def _union(members: list[str]) -> str:
    if "Any" in members:
        return "Any"
    unique = list(dict.fromkeys(members))
    return " | ".join(unique)


def optional(annotation_text: str) -> str:
    """``T | None`` unless ``T`` already admits None."""
    if annotation_text == "Any" or "None" in annotation_text.split(" | "):
        return annotation_text
    return f"{annotation_text} | None"
