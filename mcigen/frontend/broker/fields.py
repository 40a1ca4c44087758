"""The fields of a pyMCPBroker config, declared with the checks MCI schemas use;
a field mcigen does not know is an error (a misspelt override would silently do
nothing)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeGuard

from mcigen_runtime.limits import MAX_TIMEOUT_S
from mcigen_runtime.tree import RENDER_MODES

from ...diagnostics import quoted
from ..checks import AnyJson, ArrayOf, Check, Int, MapOf, Obj, ObjectCheck, Str
from ..context import At, Context, type_name

STDIO = "stdio"
TEXT = Str()


def is_seconds(value: object) -> TypeGuard[int | float]:
    """Whether ``value`` is a number of seconds a call may wait: greater than
    zero, at most a day (so finite: ``1e999`` and YAML's ``.inf`` are not)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    return 0 < value <= MAX_TIMEOUT_S


@dataclass(frozen=True)
class Seconds(Check):
    """A number of seconds greater than zero, at most a day."""

    @property
    def expected(self) -> str:
        return "a number of seconds > 0"

    def check(self, ctx: Context, at: At, value: object) -> None:
        if isinstance(value, bool) or not isinstance(value, int | float):
            ctx.type_error(at, self.expected, value)
        elif not value > 0:  # nan too
            ctx.value_error(at, self.expected, value)
        elif not is_seconds(value):
            ctx.value_error(at, f"at most {MAX_TIMEOUT_S} seconds (a day)", value)


@dataclass(frozen=True)
class Backend(Check):
    @property
    def expected(self) -> str:
        return f"'{STDIO}'"

    def check(self, ctx: Context, at: At, value: object) -> None:
        if value != STDIO:
            shown = quoted(value) if isinstance(value, str) else type_name(value)
            ctx.error(
                at,
                f"backend {shown} is not supported: mcigen mounts stdio MCP servers "
                "only (an MCI schema's 'mcp_servers' reaches HTTP servers)",
            )


@dataclass(frozen=True)
class NodePath(Check):
    @property
    def expected(self) -> str:
        return "an absolute path (starting with '/')"

    def check(self, ctx: Context, at: At, value: object) -> None:
        if not isinstance(value, str):
            ctx.type_error(at, self.expected, value)
        elif not value.startswith("/"):
            ctx.value_error(at, self.expected, value)


@dataclass(frozen=True)
class LeafName(Check):
    @property
    def expected(self) -> str:
        return "a non-empty name without '/'"

    def check(self, ctx: Context, at: At, value: object) -> None:
        if not isinstance(value, str):
            ctx.type_error(at, self.expected, value)
        elif not value or "/" in value:
            ctx.value_error(at, self.expected, value)


@dataclass(frozen=True)
class Nodes(Check):
    """A node's ``children``: objects, each checked as a node where the tree is
    walked (a check cannot hold itself)."""

    @property
    def expected(self) -> str:
        return "an array of nodes"

    def check(self, ctx: Context, at: At, value: object) -> None:
        if not isinstance(value, list):
            ctx.type_error(at, self.expected, value)


OVERRIDE = Obj(
    "tool override",
    optional={
        "summary": TEXT,
        "description": TEXT,
        "max_output_chars": Int(minimum=1),
        "timeout": Seconds(),
        "example_args": AnyJson(kinds=("object",)),
        "render_mode": Str(choices=RENDER_MODES),
    },
    strict=True,
)

SOURCE = Obj(
    "source",
    required={"command": TEXT},
    optional={
        "backend": Backend(),
        "tool_filter": ArrayOf(Str(non_empty=True)),
        "tool_overrides": MapOf(OVERRIDE),
        "path_aliases": MapOf(LeafName()),
    },
    strict=True,
)

NODE = Obj(
    "node",
    required={"path": NodePath()},
    optional={
        "type": Str(choices=("node",)),
        "summary": TEXT,
        "description": TEXT,
        "children": Nodes(),
        "source": SOURCE,
    },
    strict=True,
)


@dataclass(frozen=True)
class TreeShape(ObjectCheck):
    """``tree``: a list of nodes under an implicit root, or the root node."""

    @property
    def expected(self) -> str:
        return "an array of nodes or the root node"

    def check(self, ctx: Context, at: At, value: object) -> None:
        if not isinstance(value, list | dict):
            ctx.type_error(at, self.expected, value)


CONFIG = Obj("broker config", required={"tree": TreeShape()}, strict=True)
