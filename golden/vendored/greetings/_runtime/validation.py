"""Input validation of a tool call against its generated pydantic model."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ValidationError

from .errors import ToolInputError


def validate_input(model: type[BaseModel], raw: Mapping[str, Any], tool: str) -> None:
    """Raise :class:`ToolInputError` naming every offending field of ``raw``."""
    try:
        model.model_validate(raw)
    except ValidationError as error:
        problems = [
            (".".join(str(part) for part in item["loc"]), item["msg"])
            for item in error.errors(include_url=False)
        ]
        raise ToolInputError(tool, problems) from None
