"""The ``$ref``s of an inputSchema that no input model can resolve: the model
generator is given the definitions at the schema's root (``$defs`` and
``definitions``) and nothing else, so a reference names one of those or fails."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from urllib.parse import unquote

from ...diagnostics import quoted

LOCAL_REF_PREFIXES = ("#/$defs/", "#/definitions/")
Path = tuple[str | int, ...]


def definition_name(ref: str) -> str | None:
    """The root definition ``ref`` names, or None for a reference of another form."""
    for prefix in LOCAL_REF_PREFIXES:
        if ref.startswith(prefix):
            return _pointer_token(ref.removeprefix(prefix))
    return None


def unresolved_ref(ref: str) -> str:
    return f"unsupported $ref {quoted(ref)}: only local definitions are resolved"


def unresolved_refs(schema: dict[str, Any]) -> Iterator[tuple[Path, str]]:
    """The path of every ``$ref`` (its key included) naming no root definition, and
    the reference. Like the model generator, every object holding a string
    ``$ref`` counts, wherever it is."""
    defined: set[str] = set()
    for key in ("$defs", "definitions"):
        definitions = schema.get(key)
        if isinstance(definitions, dict):
            defined.update(definitions)
    yield from _walk(schema, (), defined)


def _walk(node: object, path: Path, defined: set[str]) -> Iterator[tuple[Path, str]]:
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and definition_name(ref) not in defined:
            yield (*path, "$ref"), ref
        for key, value in node.items():
            yield from _walk(value, (*path, key), defined)
    elif isinstance(node, list):
        for index, item in enumerate(node):
            yield from _walk(item, (*path, index), defined)


def _pointer_token(fragment: str) -> str:
    """A definition's name from its ``$ref`` token: a URI fragment (percent-encoded)
    holding a JSON pointer token (``~1`` for ``/``, ``~0`` for ``~``)."""
    return unquote(fragment).replace("~1", "/").replace("~0", "~")
