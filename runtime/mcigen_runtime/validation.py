"""Input validation of a tool call against its generated pydantic model.

Importing it loads no pydantic, nor the errors' module: a tool module imports it,
and input its fast check does not doubt never reaches a model (mcigen's
``backend/input_guard.py``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pydantic import BaseModel


def validate_input(
    model: type[BaseModel], raw: Mapping[str, Any], tool: str
) -> Mapping[str, Any]:
    """The input the tool gets: ``raw``, its whole floats typed integer made ints
    (``integers.py``). Raise :class:`ToolInputError` naming every offending field."""
    from pydantic import ValidationError

    from .errors import ToolInputError
    from .integers import with_whole_ints

    try:
        validated = model.model_validate(raw)
    except ValidationError as error:
        problems = [
            (error_location(item["loc"]), item["msg"])
            for item in error.errors(include_url=False)
        ]
        raise ToolInputError(tool, problems) from None
    return with_whole_ints(raw, validated)


def error_location(loc: Sequence[str | int]) -> str:
    """Where a validation error is, as messages spell it: ``tags.1``, ``either.int``."""
    from .integers import UNION_LABEL

    return ".".join("int" if part == UNION_LABEL else str(part) for part in loc)
