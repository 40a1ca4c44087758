"""The models of ``MCIClient.tools()``'s descriptions, mci-py's ``Tool`` and the two
it holds. ``mcigen_runtime.client`` offers them too, importing this module when one
is first asked for: a client that only executes never makes their classes (a
pydantic class statement is ~1.5 M instructions, built or not)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from .deferred import DeferredModel

__all__ = ["Annotations", "Execution", "Tool"]


class Annotations(DeferredModel):
    title: str | None = None
    readOnlyHint: bool | None = None
    destructiveHint: bool | None = None
    idempotentHint: bool | None = None
    openWorldHint: bool | None = None
    audience: list[Literal["user", "assistant"]] | None = None


class Execution(DeferredModel):
    """What kind of executor runs the tool; its settings are compiled into the code."""

    type: str


class Tool(DeferredModel):
    """A tool as ``MCIClient.tools()`` describes it."""

    name: str
    disabled: bool = False
    annotations: Annotations | None = None
    description: str | None = None
    inputSchema: dict[str, Any] | None = None
    execution: Execution
    tags: list[str] = Field(default_factory=list)
    toolset_source: str | None = Field(default=None, exclude=True)
