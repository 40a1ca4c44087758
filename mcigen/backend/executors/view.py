"""What every executor's view holds, and the compiling of a tool's templated parts
into the statements and expressions its template writes."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from mcigen_runtime.templating.compiler import CompiledText, compile_structure
from mcigen_runtime.templating.parser import parse_native, parse_template
from mcigen_runtime.templating.syntax import references

from ... import ir
from ..pysource import Code, code, literal
from .mcp_servers import McpServerView

RESULTS = "mcigen_runtime.results"
TEMPLATING = "mcigen_runtime.templating"
PATH_POLICY = "mcigen_runtime.path_policy"


def executor_face(kind: str) -> tuple[str, str]:
    """The import of executor ``kind``'s face as a module (``_cli``): generated code
    names what it uses as the face's attributes (``_cli.CliCall``), and the face
    loads the module holding one when a call first uses it, so that a group
    module's text tools load no code of the other kinds its tools have."""
    return ("mcigen_runtime.executors", f"{kind} as _{kind}")


TEMPLATE_FAILURES: frozenset[tuple[str, str]] = frozenset(
    {
        (RESULTS, "error_result as _error_result"),
        (TEMPLATING, "TemplateRuntimeError as _TemplateRuntimeError"),
    }
)
"""What an executor whose templates may fail at run time needs to turn the failure
into a result."""

PATH_FAILURES = TEMPLATE_FAILURES | {(PATH_POLICY, "PathRefused as _PathRefused")}
"""The same for an executor that also checks a path."""


@dataclass(frozen=True)
class Build:
    """What a view is made from besides the tool's execution."""

    planned: ir.PlannedTool
    whitespace: str
    """The mode the templates are parsed in (``compat`` or ``trim``)."""
    servers: Mapping[str, McpServerView]
    """The package's MCP servers' functions, by server name."""
    tools: Mapping[str, ir.PlannedTool]
    """The package's tools by name (what a sequence's steps run)."""
    confine_cli: bool = False
    """Whether a cli tool's command may write only where its path policy allows
    (``--confine-cli``)."""


@dataclass(frozen=True)
class Keyword:
    """A keyword of a tool's public functions that is not tool input."""

    parameter: Code
    """As the signature writes it (``_timeout: float | None = None``)."""
    description: tuple[str, str]
    """(name, description) for the docstring."""
    forwarded: Code
    """What the functions pass their invoker after the input and the environment."""


@dataclass
class ExecutorView:
    """What the group module needs to know of one tool's executor; each kind's view
    adds what its template writes."""

    imports: set[tuple[str, str]] = field(default_factory=set)
    compiled: list[CompiledText] = field(default_factory=list)
    """The templates compiled into the tool's code."""
    statements: list[Code] = field(default_factory=list)
    """What computes their values, in the order they were compiled."""
    awaits: bool = False
    """Whether the async twin awaits ``_invoke_<name>_async`` (real async I/O)."""
    needs_context: bool = False
    """Whether the invoker builds the template context (besides what compiled
    templates ask for)."""
    needs_props: bool = False
    """Whether the invoker builds ``props`` (besides what compiled templates read)."""
    limited: bool = True
    """Whether the tool's calls are bounded by the package's limits."""
    base_dir: bool = False
    """Whether the tool resolves relative paths against the schema's directory."""
    reads_files: bool = False
    """Whether the tool renders files whose templates read environment variables."""
    server: McpServerView | None = None
    """The MCP server the tool calls."""
    keyword: Keyword | None = None

    def compile(self, made: CompiledText) -> Code:
        """``made``'s expression; its statements go to ``statements``."""
        self.compiled.append(made)
        self.statements.extend(code(s) for s in made.statements)
        self.use_helpers(made.helpers)
        return code(made.expression)

    def use_helpers(self, helpers: Iterable[str]) -> None:
        """Import the runtime helpers compiled template code calls."""
        self.imports.update(
            (TEMPLATING, f"{helper} as _{helper}") for helper in helpers
        )


class Parts:
    """The JSON values of one executor compiled in turn (each part's locals named
    from its own prefix), and the env values the secret ones read."""

    def __init__(self, view: ExecutorView, present: frozenset[str]) -> None:
        self.view = view
        self.present = present
        self.env_paths: list[tuple[str, ...]] = []
        """The env values the parts marked secret read."""

    def structure(self, value: object, prefix: str, secret_env: bool = False) -> Code:
        """A JSON value whose strings take placeholders. ``secret_env``: the env
        values it reads are secrets (those used in auth, headers or query strings),
        kept out of every message."""
        if secret_env:
            self.env_paths.extend(env_paths_of(value))
        return self.view.compile(compile_structure(value, self.present, prefix))


def env_paths_of(value: object) -> list[tuple[str, ...]]:
    """The env paths the strings in a JSON value read."""
    if isinstance(value, dict):
        return [p for v in value.values() for p in env_paths_of(v)]
    if isinstance(value, list):
        return [p for v in value for p in env_paths_of(v)]
    if not isinstance(value, str):
        return []
    native = parse_native(value)
    nodes = (native,) if native is not None else parse_template(value).nodes
    return [r.path.parts for r in references(nodes) if r.path.root == "env"]


def env_values(paths: Iterable[tuple[str, ...]]) -> Code:
    """A list expression of the env values at ``paths`` (None where unset), once each."""
    unique = dict.fromkeys(paths)
    return code(
        "[" + ", ".join(f"_value_or_none(context, {literal(p)})" for p in unique) + "]"
    )


def path_policy(planned: ir.PlannedTool) -> Code:
    """The policy keywords of ``checked_path`` for the tool, as source."""
    policy = planned.path_policy
    return code(
        f"base_dir=_BASE_DIR, enable_any_paths={literal(policy.enable_any_paths)}, "
        f"allow_list={literal(policy.directory_allow_list)}"
    )


def declared(tool: ir.Tool) -> dict[str, object]:
    """The tool's declared input properties by name."""
    properties = (tool.input_schema or {}).get("properties")
    return properties if isinstance(properties, dict) else {}


def present(tool: ir.Tool) -> frozenset[str]:
    """Properties that are always in ``props`` once the input has been validated."""
    required = set((tool.input_schema or {}).get("required") or ())
    return frozenset(
        name
        for name, schema in declared(tool).items()
        if name in required or (isinstance(schema, dict) and "default" in schema)
    )
