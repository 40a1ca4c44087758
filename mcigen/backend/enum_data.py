"""Large enums (``mcigen/large_enums.py``) as data that the generated code shares.

Each large enum of a tool's input schema gets a name, ``_<Model>Enum<i>`` in the
order the schema is walked. The group module binds that name to the runtime's
``EnumMembers``, which reads the members from the module's JSON data file
(``tools/<group>.enums.json``) on first use; the input guard tests membership with
it, and the model's field type ``_<Model>Enum<i>Type`` (in the group's models
module) validates with it. So the values are written once, as JSON, and neither
black nor datamodel-code-generator ever sees them.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from mcigen_runtime import integers

from ..large_enums import large_enum_kind
from .pysource import literal

FIELD_TYPE_MODULE = "__mcigen_enum_types__"
"""The module datamodel-code-generator is told the field types come from; the
types are defined in the group module itself, so this import is dropped."""

_NOT_SCHEMAS = frozenset({"default", "examples", "const", "enum"})
"""Keys whose values are data, never schemas to look into."""

_STRICT_TYPES = {
    "string": ("pydantic", "StrictStr"),
    "integer": (integers.__name__, "StrictInt"),  # the models' integer
}

Path = tuple[str | int, ...]


def enum_names(schema: Any, model_name: str) -> dict[Path, str]:
    """The name of every large enum in ``schema``, by its path there."""
    return {
        path: f"_{model_name}Enum{index}"
        for index, (path, _) in enumerate(_large_enums(schema, ()))
    }


def without_large_enums(
    schema: Any, model_name: str
) -> tuple[Any, dict[str, list[Any]]]:
    """``schema`` with each large enum typed by its name's field type, and the
    members of each by name."""
    names = enum_names(schema, model_name)
    members: dict[str, list[Any]] = {}

    def rewritten(node: Any, path: Path) -> Any:
        if path in names:
            members[names[path]] = node["enum"]
            kept = {k: v for k, v in node.items() if k != "enum"}
            kept["type"] = large_enum_kind(node)  # the model cache's key holds it
            kept["customTypePath"] = f"{FIELD_TYPE_MODULE}.{names[path]}Type"
            return kept
        if isinstance(node, dict):
            return {
                k: v if k in _NOT_SCHEMAS else rewritten(v, (*path, k))
                for k, v in node.items()
            }
        if isinstance(node, list):
            return [rewritten(v, (*path, i)) for i, v in enumerate(node)]
        return node

    return (rewritten(schema, ()) if names else schema), members


def bindings(members: dict[str, list[Any]]) -> tuple[set[tuple[str, str]], str]:
    """The imports and the source that bind each name of ``members`` in a group
    module, for its input guard (no pydantic)."""
    imports = {("mcigen_runtime.enum_members", "EnumMembers as _EnumMembers")}
    lines = [f"{name} = _EnumMembers(__file__, {literal(name)})" for name in members]
    return imports, "\n".join(lines) + "\n"


def field_types(
    group: str, members: dict[str, list[Any]]
) -> tuple[set[tuple[str, str]], str]:
    """The imports and the source that bind the field type of each name of
    ``members`` in the models module of ``group``, validating with the group
    module's binding of the name."""
    imports = {
        ("typing", "Annotated"),
        ("typing", "TypeAlias"),
        ("pydantic", "AfterValidator"),
    }
    lines = []
    for name, values in members.items():
        module, strict = _STRICT_TYPES[large_enum_kind({"enum": values}) or "string"]
        imports |= {(module, strict), (f"..{group}", name)}
        lines.append(
            f"{name}Type: TypeAlias = Annotated[{strict}, AfterValidator({name})]"
        )
    return imports, "\n".join(lines) + "\n"


def data_file(members: dict[str, list[Any]]) -> bytes:
    """The JSON data file of a group module's large enums."""
    return (json.dumps(members, ensure_ascii=False, indent=0) + "\n").encode()


def _large_enums(node: Any, path: Path) -> Iterator[tuple[Path, Any]]:
    if large_enum_kind(node) is not None:
        yield path, node
    elif isinstance(node, dict):
        for key, value in node.items():
            if key not in _NOT_SCHEMAS:
                yield from _large_enums(value, (*path, key))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _large_enums(value, (*path, index))
