"""The checks of Ahma's MtdfValidator (``schema_validation.rs``, AHMA-SEMANTICS §9.2 a-k),
reserved tool names, and tools a build will leave out.

They read the data whatever its shape: a field of the wrong type was reported by
``shape.py`` and is skipped here.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from mcigen_runtime.limits import MAX_TIMEOUT_S

from ...diagnostics import quoted
from ..context import At, Context
from ..pointers import child_pointer
from .fields import U64_LIMIT

RESERVED_TOOL_NAMES = ("await", "status", "cancel", "sandboxed_shell")
MAX_TIMEOUT_SECONDS = 3600
OPTION_TYPES = ("string", "boolean", "integer", "array")
_OPTION_TYPE_FIXES = {"bool": "boolean", "int": "integer", "str": "string"}
_ASYNC_WORDS = re.compile(r"\b(?:notification|asynchronously|async|background)\b")


def check_rules(ctx: Context) -> None:
    tool = ctx.doc.data
    if not isinstance(tool, dict):
        return
    top = At("", "")
    for name in ("name", "command", "description"):
        _not_empty(ctx, top, tool, name)
    _check_timeout(ctx, tool)
    _check_waits(ctx, top, tool)
    _check_reserved_name(ctx, tool)
    _check_livelog(ctx, tool)
    synchronous = synchronous_of(tool, None)
    for index, sub in _entries(tool, "subcommand"):
        _check_subcommand(ctx, _at(top, "subcommand", index), sub, synchronous)


def _check_subcommand(
    ctx: Context, at: At, sub: dict[str, object], inherited: bool | None
) -> None:
    _not_empty(ctx, at, sub, "name")
    _not_empty(ctx, at, sub, "description")
    _check_waits(ctx, at, sub)
    synchronous = synchronous_of(sub, inherited)
    description = sub.get("description")
    if (
        synchronous
        and isinstance(description, str)
        and _ASYNC_WORDS.search(description.lower())
    ):
        ctx.error(
            _field(at, "description"),
            "the description mentions async behavior but the subcommand runs "
            "synchronously; set synchronous to false or update the description",
        )
    for index, nested in _entries(sub, "subcommand"):
        _check_subcommand(ctx, _at(at, "subcommand", index), nested, synchronous)
    for index, option in _entries(sub, "options"):
        option_at = _at(at, "options", index)
        _not_empty(ctx, option_at, option, "name")
        _check_option_type(ctx, option_at, option.get("type"))


def _check_option_type(ctx: Context, at: At, option_type: object) -> None:
    if not isinstance(option_type, str) or option_type in OPTION_TYPES:
        return
    fix = _OPTION_TYPE_FIXES.get(option_type)
    hint = f"; use {quoted(fix)} instead of {quoted(option_type)}" if fix else ""
    ctx.error(
        _field(at, "type"),
        f"invalid option type {quoted(option_type)}: must be one of "
        f"{', '.join(OPTION_TYPES)}{hint}",
    )


def _check_timeout(ctx: Context, tool: dict[str, object]) -> None:
    timeout = tool.get("timeout_seconds")
    if not isinstance(timeout, int) or isinstance(timeout, bool):
        return
    at = At("/timeout_seconds", "timeout_seconds")
    if timeout > MAX_TIMEOUT_SECONDS:
        ctx.error(
            at,
            f"timeout should not exceed {MAX_TIMEOUT_SECONDS} seconds (1 hour); "
            "use a shorter timeout or break the operation into smaller steps",
        )
    elif timeout == 0:
        ctx.error(at, "timeout should be at least 1 second")


def _check_waits(ctx: Context, at: At, fields: dict[str, object]) -> None:
    """A timeout or pause no call could wait out (longer than a day) is refused."""
    day_ms = MAX_TIMEOUT_S * 1000
    _at_most(ctx, _field(at, "step_delay_ms"), fields, day_ms, "milliseconds")
    if at.pointer:  # the tool's own timeout has its tighter rule
        _at_most(ctx, _field(at, "timeout_seconds"), fields, MAX_TIMEOUT_S, "seconds")
    for index, step in _entries(fields, "sequence"):
        args = step.get("args")
        if isinstance(args, dict):
            step_args = _field(_at(at, "sequence", index), "args")
            timeout = _field(step_args, "timeout_seconds")
            _at_most(ctx, timeout, args, MAX_TIMEOUT_S, "seconds")


def _at_most(
    ctx: Context, at: At, fields: dict[str, object], most: int, unit: str
) -> None:
    value = fields.get(at.pointer.rpartition("/")[2])
    # Past a u64 the shape check has said so already.
    if (
        isinstance(value, int)
        and not isinstance(value, bool)
        and most < value < U64_LIMIT
    ):
        ctx.error(
            at, f"{quoted(at.label)} must be at most {most} {unit} (a day), got {value}"
        )


def _check_reserved_name(ctx: Context, tool: dict[str, object]) -> None:
    name = tool.get("name")
    if name in RESERVED_TOOL_NAMES:
        ctx.error(
            At("/name", "name"),
            f"tool name {quoted(name)} is reserved for Ahma's own tools "
            f"({', '.join(RESERVED_TOOL_NAMES)}); rename the tool",
        )


def _check_livelog(ctx: Context, tool: dict[str, object]) -> None:
    if tool.get("tool_type") == "livelog":
        name = tool.get("name")
        called = f" {quoted(name)}" if isinstance(name, str) else ""
        ctx.warning(
            At("/tool_type", "tool_type"),
            f"livelog tool{called} needs an LLM to watch its output; "
            "builds leave it out",
        )


def synchronous_of(fields: Mapping[str, object], inherited: bool | None) -> bool | None:
    for spelling in ("synchronous", "force_synchronous"):
        value = fields.get(spelling)
        if isinstance(value, bool):
            return value
    return inherited


def _entries(
    fields: dict[str, object], name: str
) -> list[tuple[int, dict[str, object]]]:
    """The objects in the array ``fields[name]``, with their indexes."""
    items = fields.get(name)
    if not isinstance(items, list):
        return []
    return [(i, item) for i, item in enumerate(items) if isinstance(item, dict)]


def _not_empty(ctx: Context, at: At, fields: dict[str, object], name: str) -> None:
    if fields.get(name) == "":
        ctx.error(_field(at, name), f"{quoted(_field(at, name).label)} cannot be empty")


def _field(at: At, name: str) -> At:
    label = name if not at.pointer else f"{at.label}.{name}"
    return At(child_pointer(at.pointer, name), label)


def _at(at: At, name: str, index: int) -> At:
    pointer = child_pointer(child_pointer(at.pointer, name), index)
    label = f"{name}[{index}]" if not at.pointer else f"{at.label}.{name}[{index}]"
    return At(pointer, label)
