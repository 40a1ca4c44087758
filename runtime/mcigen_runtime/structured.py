"""Typed structured content: what the function of an MCP tool whose server declares
an ``outputSchema`` returns.

The result is a :class:`ToolResult` like every other, with one more attribute,
``structured``: the call's structured content validated into the model generated
from the ``outputSchema``. It is left out of dumps, so ``model_dump()`` keeps the
shape of mci-py's result; the content as the server sent it stays in
``metadata["structuredContent"]``.

Structured content that does not match the model (the MCP spec has clients check
it) leaves ``structured`` None and says why in
``metadata["structuredContentError"]``; the result is otherwise kept as the
server sent it, text included.
"""

from __future__ import annotations

from typing import Generic, TypeVar

from pydantic import BaseModel, Field, ValidationError

from .results import STRUCTURED_CONTENT, ToolResult
from .validation import error_location

__all__ = ["StructuredResult", "structured_result"]

STRUCTURED_CONTENT_ERROR = "structuredContentError"
"""The metadata key that says why the structured content was not typed."""

Structured = TypeVar("Structured", bound=BaseModel)


class StructuredResult(ToolResult, Generic[Structured]):
    """A tool's result with its structured content typed as ``Structured``."""

    structured: Structured | None = Field(default=None, exclude=True)
    """The structured content as the model of the tool's ``outputSchema``; None
    when the server sent none, or content that does not match."""


def structured_result(
    model: type[Structured], result: ToolResult
) -> StructuredResult[Structured]:
    """``result`` with its structured content validated into ``model``."""
    metadata = result.metadata
    sent = None if metadata is None else metadata.get(STRUCTURED_CONTENT)
    structured: Structured | None = None
    if metadata is not None and sent is not None:
        try:
            structured = model.model_validate(sent)
        except ValidationError as error:
            metadata = {**metadata, STRUCTURED_CONTENT_ERROR: _mismatch(error)}
    typed: type[StructuredResult[Structured]] = StructuredResult
    return typed.model_construct(
        content=result.content,
        isError=result.isError,
        metadata=metadata,
        structured=structured,
    )


def _mismatch(error: ValidationError) -> str:
    """The first problem, and how many more there are (not the values: the
    content may be large)."""
    problems = error.errors(include_url=False, include_input=False)
    first = problems[0]
    where = error_location(first["loc"]) or "the content"
    more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
    return (
        "the structured content does not match the tool's outputSchema: "
        f"{where}: {first['msg']}{more}"
    )
