"""Whether a value fits a tool's ``inputSchema``, as a validator of the schema's own
draft sees it: the one check of the example arguments a broker shows, whether a
broker config gives them or the build makes them up."""

from __future__ import annotations

from typing import Any

from jsonschema.exceptions import best_match
from jsonschema.validators import Draft202012Validator, validator_for
from jsonschema_specifications import REGISTRY  # type: ignore[import-untyped]
from referencing import Registry
from referencing.exceptions import Unresolvable

from ..diagnostics import quoted

EMPTY_SCHEMA: dict[str, Any] = {"type": "object", "properties": {}}
"""What a tool without an ``inputSchema`` takes, as the broker shows it."""

_META_SCHEMAS: Registry[Any] = REGISTRY
"""The drafts' meta-schemas, and no way to fetch any other document: the registry
jsonschema's validators start from, which given as it is costs them nothing."""


def misfit(value: Any, schema: dict[str, Any]) -> str | None:
    """What is wrong with ``value`` for ``schema`` (None: it fits)."""
    # An unknown dialect is checked as 2020-12 (the build has warned of it already);
    # named here, as jsonschema will stop choosing it by itself.
    draft = validator_for(schema, default=Draft202012Validator)
    validator = draft(schema, registry=_META_SCHEMAS)
    try:
        problem = best_match(validator.iter_errors(value))
    except Unresolvable as error:
        return f"$ref {quoted(error.ref)} is not a definition of the schema itself"
    if problem is None:
        return None
    where = "".join(f"[{part!r}]" for part in problem.absolute_path)
    return f"{f'at {where}: ' if where else ''}{problem.message}"
