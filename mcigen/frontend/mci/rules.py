"""The MCI v1 schema, field by field, declared with the checks of ``checks.py``."""

from __future__ import annotations

from dataclasses import dataclass

from mcigen_runtime.limits import MAX_TIMEOUT_S

from ...diagnostics import quoted
from ..checks import (
    AnyJson,
    ArrayOf,
    Bool,
    ByType,
    Check,
    Ignored,
    Int,
    MapOf,
    Obj,
    ObjectCheck,
    OrNull,
    Rule,
    Str,
    Tagged,
)
from ..context import At, Context, TemplateMode, show, type_name
from .input_schema import ObjectSchema

SUPPORTED_SCHEMA_VERSIONS = ("1.0",)
HTTP_METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS")
FILTERS = ("only", "except", "tags", "withoutTags", "glob")
"""``glob`` is mcigen's own (``planner/filters.py``); mci-py refuses it."""
TASK_SUPPORT = ("forbidden", "optional", "required")
"""An MCP tool's ``execution.taskSupport`` (MCP 2025-11-25)."""
DEFAULT_TIMEOUT_MS = 30000
DEFAULT_RETRY_ATTEMPTS = 1
DEFAULT_RETRY_BACKOFF_MS = 500

PLACEHOLDERS = TemplateMode.PLACEHOLDERS
TEMPLATED = Str(template=PLACEHOLDERS)
TEXT = Str()
STRINGS = ArrayOf(TEXT)
MAX_TIMEOUT_MS = MAX_TIMEOUT_S * 1000
"""A call waits at most a day: a longer timeout (or pause) is refused."""
TIMEOUT = Int(minimum=0, maximum=MAX_TIMEOUT_MS)
# Where leaving a field out means "nothing" rather than a default, the reference
# adapter also takes null for it; these fields are wrapped in OrNull.
MAYBE_TEXT = OrNull(TEXT)


@dataclass(frozen=True)
class SchemaVersion(Check):
    @property
    def expected(self) -> str:
        quoted = ", ".join(f'"{version}"' for version in SUPPORTED_SCHEMA_VERSIONS)
        if len(SUPPORTED_SCHEMA_VERSIONS) == 1:
            return f"the string {quoted}"
        return f"one of the strings {quoted}"

    def check(self, ctx: Context, at: At, value: object) -> None:
        if not isinstance(value, str):
            # YAML reads an unquoted 1.0 as a number.
            hint = (
                " (write it in quotes)"
                if type_name(value) in ("number", "integer")
                else ""
            )
            ctx.error(
                at,
                f"{quoted(at.label)} must be {self.expected}, got {type_name(value)}{hint}",
            )
        elif value not in SUPPORTED_SCHEMA_VERSIONS:
            supported = ", ".join(SUPPORTED_SCHEMA_VERSIONS)
            ctx.error(
                at,
                f"unsupported schemaVersion {show(value)}; supported versions: {supported}",
            )


@dataclass(frozen=True)
class McpServerName(Check):
    """An MCP tool's ``serverName``, which a main schema must declare."""

    @property
    def expected(self) -> str:
        return "a string"

    def check(self, ctx: Context, at: At, value: object) -> None:
        TEXT.check(ctx, at, value)
        known = ctx.mcp_server_names
        if isinstance(value, str) and known is not None and value not in known:
            ctx.error(at, f"MCP server {quoted(value)} is not defined in 'mcp_servers'")


def _filter_needs_value(ctx: Context, at: At, value: dict[str, object]) -> None:
    has_filter = value.get("filter") is not None
    has_value = value.get("filterValue") is not None
    if has_filter and not has_value:
        ctx.error(
            at, "missing required field 'filterValue' (required when 'filter' is set)"
        )
    elif has_value and not has_filter:
        ctx.warning(
            at.field("filterValue"),
            "'filterValue' has no effect without 'filter'",
            on_key=True,
        )


FILTERING: dict[str, Check] = {
    "filter": OrNull(Str(choices=FILTERS)),
    "filterValue": MAYBE_TEXT,
}


def _execution(
    kind: str,
    required: dict[str, Check],
    optional: dict[str, Check],
    rules: tuple[Rule, ...] = (),
) -> Obj:
    return Obj(
        f"{kind} execution",
        required={"type": TEXT, **required},
        optional=optional,
        rules=rules,
    )


def _flags_after_separator(ctx: Context, at: At, value: dict[str, object]) -> None:
    """MCI appends flags after args: behind a '--' they are operands, not options."""
    args, flags = value.get("args"), value.get("flags")
    if not isinstance(args, list) or "--" not in args:
        return
    if not isinstance(flags, dict) or not flags:
        return
    names = ", ".join(quoted(name) for name in flags)
    ctx.warning(
        at.field("args").item(args.index("--")),
        f"'--' ends the options, but MCI appends flags ({names}) after args, so "
        "the command would read them as operands. Drop '--' (a value starting "
        "with '-' that fills an operand is refused at call time anyway), or pass "
        "the value through an option (grep's '-e PATTERN')",
    )


def _auth(kind: str, required: dict[str, Check], optional: dict[str, Check]) -> Obj:
    return Obj(f"{kind} auth", required={"type": TEXT, **required}, optional=optional)


def _body(kind: str, content: Check) -> Obj:
    return Obj(f"{kind} body", required={"type": TEXT, "content": content})


AUTH = Tagged(
    "type",
    what="auth",
    variants={
        "apiKey": _auth(
            "apiKey",
            {
                "in": Str(choices=("header", "query")),
                "name": TEMPLATED,
                "value": TEMPLATED,
            },
            {},
        ),
        "bearer": _auth("bearer", {"token": TEMPLATED}, {}),
        "basic": _auth("basic", {"username": TEMPLATED, "password": TEMPLATED}, {}),
        "oauth2": _auth(
            "oauth2",
            {
                "flow": TEXT,
                "tokenUrl": TEMPLATED,
                "clientId": TEMPLATED,
                "clientSecret": TEMPLATED,
            },
            {"scopes": OrNull(STRINGS)},
        ),
    },
)

BODY = Tagged(
    "type",
    what="body",
    variants={
        "json": _body(
            "json", AnyJson(kinds=("object", "array"), template=PLACEHOLDERS)
        ),
        "form": _body("form", AnyJson(kinds=("object",), template=PLACEHOLDERS)),
        "raw": _body("raw", TEMPLATED),
    },
)

RETRIES = Obj(
    "retries",
    optional={
        "attempts": Int(minimum=1),
        "backoff_ms": Int(minimum=0, maximum=MAX_TIMEOUT_MS),
    },
)

FLAG = Obj("flag", required={"from": TEXT, "type": Str(choices=("boolean", "value"))})

PASS_ENV = ByType(
    {bool: Bool(), list: ArrayOf(Str(non_empty=True))},
    "true, false or a list of variable names",
    "true, false or lists of variable names",
)

EXECUTION = Tagged(
    "type",
    what="execution",
    variants={
        "http": _execution(
            "http",
            {"url": TEMPLATED},
            {
                "method": Str(choices=HTTP_METHODS, any_case=True),
                "headers": OrNull(MapOf(TEMPLATED)),
                "params": OrNull(AnyJson(kinds=("object",), template=PLACEHOLDERS)),
                "auth": OrNull(AUTH),
                "body": OrNull(BODY),
                "timeout_ms": TIMEOUT,
                "retries": OrNull(RETRIES),
            },
        ),
        "cli": _execution(
            "cli",
            {"command": TEMPLATED},
            {
                "args": OrNull(ArrayOf(TEMPLATED)),
                "flags": OrNull(MapOf(FLAG)),
                "cwd": OrNull(TEMPLATED),
                "timeout_ms": TIMEOUT,
                "allowOptionLikeArgs": Bool(),
                # mcigen's own (mci-py ignores it): the variables of the process
                # the command gets besides the call's env (runtime/passed_env.py)
                "passEnv": OrNull(PASS_ENV),
            },
            rules=(_flags_after_separator,),
        ),
        "file": _execution("file", {"path": TEMPLATED}, {"enableTemplating": Bool()}),
        "text": _execution("text", {"text": Str(template=TemplateMode.DIRECTIVES)}, {}),
        "mcp": _execution(
            "mcp",
            {"serverName": McpServerName(), "toolName": TEXT},
            # mcigen's own (mci-py ignores it): the tool's execution.taskSupport
            # on its server, which decides whether a call is made as a task
            {"taskSupport": OrNull(Str(choices=TASK_SUPPORT))},
        ),
    },
)

ANNOTATIONS = Obj(
    "annotations",
    optional={
        "title": MAYBE_TEXT,
        "readOnlyHint": OrNull(Bool()),
        "destructiveHint": OrNull(Bool()),
        "idempotentHint": OrNull(Bool()),
        "openWorldHint": OrNull(Bool()),
        "audience": OrNull(ArrayOf(Str(choices=("user", "assistant")))),
    },
)


def _output_schema_needs_mcp(ctx: Context, at: At, value: dict[str, object]) -> None:
    """Only an MCP server returns the structured content an ``outputSchema``
    describes; served again, another tool would promise MCP clients a result it
    never gives."""
    execution = value.get("execution")
    if value.get("outputSchema") is None or not isinstance(execution, dict):
        return
    if execution.get("type") != "mcp":
        ctx.warning(
            at.field("outputSchema"),
            "'outputSchema' is used only by MCP tools (their server returns the "
            "structured content it describes); ignored",
            on_key=True,
        )


TOOL = Obj(
    "tool",
    required={"name": Str(non_empty=True), "execution": EXECUTION},
    optional={
        "title": MAYBE_TEXT,
        "description": MAYBE_TEXT,
        "disabled": Bool(),
        "annotations": OrNull(ANNOTATIONS),
        "inputSchema": OrNull(ObjectSchema(modelled=True)),
        "outputSchema": OrNull(ObjectSchema()),
        "tags": STRINGS,
        "enableAnyPaths": Bool(),
        "directoryAllowList": STRINGS,
    },
    rules=(_output_schema_needs_mcp,),
)

TOOLSET_REF = ByType(
    {
        str: Str(non_empty=True),
        dict: Obj(
            "toolset",
            required={"name": Str(non_empty=True)},
            optional=FILTERING,
            rules=(_filter_needs_value,),
        ),
    },
    description="a toolset name or an object",
    description_plural="toolset names or objects",
)

MCP_SERVER_CONFIG = Obj(
    "MCP server config",
    # timeout_ms: how long one call of the server's tools may take (mcigen's own;
    # mci-py ignores it).
    optional={
        "expDays": Int(minimum=1),
        "timeout_ms": Int(minimum=1, maximum=MAX_TIMEOUT_MS),
        **FILTERING,
    },
    rules=(_filter_needs_value,),
)
STDIO_SERVER = Obj(
    "STDIO MCP server",
    required={"command": TEMPLATED},
    optional={
        "type": Str(choices=("stdio",)),
        "args": ArrayOf(TEMPLATED),
        "env": MapOf(TEMPLATED),
        "config": MCP_SERVER_CONFIG,
    },
)
HTTP_SERVER = Obj(
    "HTTP MCP server",
    required={"url": TEMPLATED},
    optional={
        "type": Str(choices=("http",)),
        "headers": MapOf(TEMPLATED),
        "config": MCP_SERVER_CONFIG,
    },
)


@dataclass(frozen=True)
class McpServer(ObjectCheck):
    """An HTTP server says ``type: http``, or gives a ``url`` and no ``command``
    (mci-py reads it so); a STDIO server gives a ``command``."""

    def check(self, ctx: Context, at: At, value: object) -> None:
        if not isinstance(value, dict):
            ctx.type_error(at, self.expected, value)
        elif is_http_server(value):
            HTTP_SERVER.check(ctx, at, value)
        elif "command" in value:
            STDIO_SERVER.check(ctx, at, value)
        elif "type" in value:
            ctx.value_error(
                at.field("type"),
                "'http' (or give a 'command' for a STDIO server)",
                value["type"],
            )
        else:
            ctx.error(
                at,
                f"{quoted(at.label)} needs a 'command' (STDIO server)"
                " or a 'url' (HTTP server)",
            )


def is_http_server(config: dict[str, object]) -> bool:
    """``type: http``, or a ``url`` without ``type`` or ``command``."""
    if "type" in config:
        return config["type"] == "http"
    return "url" in config and "command" not in config


def _needs_something_to_load(ctx: Context, at: At, value: dict[str, object]) -> None:
    if all(value.get(name) is None for name in ("tools", "toolsets", "mcp_servers")):
        ctx.error(
            at,
            "the schema must define at least one of 'tools', 'toolsets' or 'mcp_servers'",
        )


METADATA = Obj(
    "metadata",
    optional={
        "name": MAYBE_TEXT,
        "description": MAYBE_TEXT,
        "version": MAYBE_TEXT,
        "license": MAYBE_TEXT,
        "authors": OrNull(STRINGS),
    },
    free_form=True,
)
_COMMON_ROOT: dict[str, Check] = {"$schema": TEXT, "metadata": OrNull(METADATA)}

MAIN_SCHEMA = Obj(
    "schema",
    required={"schemaVersion": SchemaVersion()},
    optional={
        **_COMMON_ROOT,
        "tools": OrNull(ArrayOf(TOOL)),
        "toolsets": OrNull(ArrayOf(TOOLSET_REF)),
        "mcp_servers": OrNull(MapOf(McpServer())),
        "libraryDir": TEXT,
        "enableAnyPaths": Bool(),
        "directoryAllowList": STRINGS,
    },
    rules=(_needs_something_to_load,),
)

_IN_MAIN_SCHEMA = Ignored("a toolset file", "in the main schema")
_IN_MAIN_SCHEMA_OR_TOOL = Ignored("a toolset file", "in the main schema or on a tool")
TOOLSET_FILE = Obj(
    "toolset file",
    required={"schemaVersion": SchemaVersion(), "tools": ArrayOf(TOOL)},
    optional={
        **_COMMON_ROOT,
        "expiresAt": MAYBE_TEXT,
        "toolsets": _IN_MAIN_SCHEMA,
        "libraryDir": _IN_MAIN_SCHEMA,
        "mcp_servers": _IN_MAIN_SCHEMA,
        "enableAnyPaths": _IN_MAIN_SCHEMA_OR_TOOL,
        "directoryAllowList": _IN_MAIN_SCHEMA_OR_TOOL,
    },
)
