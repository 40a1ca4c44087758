"""Whether a value fits a tool's ``inputSchema``, as a validator of the schema's own
draft sees it: the one check of the example arguments a broker shows, whether a
broker config gives them or the build makes them up."""

from __future__ import annotations

from typing import Any

from jsonschema.exceptions import best_match
from jsonschema.validators import validator_for
from referencing import Registry
from referencing.exceptions import Unresolvable

EMPTY_SCHEMA: dict[str, Any] = {"type": "object", "properties": {}}
"""What a tool without an ``inputSchema`` takes, as the broker shows it."""

_LOCAL_ONLY: Registry[Any] = Registry()
"""No schema besides the one checked: a ``$ref`` elsewhere is never fetched."""


def misfit(value: Any, schema: dict[str, Any]) -> str | None:
    """What is wrong with ``value`` for ``schema`` (None: it fits)."""
    validator = validator_for(schema)(schema, registry=_LOCAL_ONLY)
    try:
        problem = best_match(validator.iter_errors(value))
    except Unresolvable as error:
        return f"$ref '{error.ref}' is not a definition of the schema itself"
    if problem is None:
        return None
    where = "".join(f"[{part!r}]" for part in problem.absolute_path)
    return f"{f'at {where}: ' if where else ''}{problem.message}"
