"""The intermediate representation: what a schema means, independent of files and JSON.

The frontend lowers a validated document into these frozen dataclasses; the planner
adds resolved names and groups; the backend emits code from the planned form.
JSON values that the IR carries unchanged (input schemas, annotations) stay plain
Python data.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mcigen_runtime.manifest import Probe as Probe
from mcigen_runtime.templating.syntax import Template
from mcigen_runtime.tree import RENDER_MODES as RENDER_MODES
from mcigen_runtime.tree import Tree as Tree  # what the manifest carries
from mcigen_runtime.tree import TreeLeaf as TreeLeaf
from mcigen_runtime.tree import TreeNode as TreeNode

from .diagnostics import Location
from .library_dir import DEFAULT_LIBRARY_DIR as DEFAULT_LIBRARY_DIR

JSON = Any


@dataclass(frozen=True)
class TemplatedString:
    """A string from the schema that goes through templating, with its parsed form."""

    raw: str
    template: Template
    location: Location


@dataclass(frozen=True)
class TextExecution:
    text: TemplatedString


@dataclass(frozen=True)
class HttpAuth:
    kind: str
    fields: dict[str, JSON]


@dataclass(frozen=True)
class HttpExecution:
    method: str
    url: TemplatedString
    headers: dict[str, JSON]
    params: dict[str, JSON]
    auth: HttpAuth | None
    body_type: str | None
    body_content: JSON
    timeout_ms: int
    retry_attempts: int | None
    retry_backoff_ms: int | None


@dataclass(frozen=True)
class CliFlag:
    """One input property on the command line, in argv order."""

    name: str
    """The flag's text (``--bin``, ``-name``); unused for an operand."""
    source: str
    kind: str
    """``boolean`` (the flag alone when true), ``value`` (the flag, then the value)
    or ``values`` (an array: the flag repeated before each element, or one operand
    per element; never joined)."""
    operand: bool = False
    """The value is an operand: no flag text before it."""
    alias: str | None = None
    """A ``boolean`` flag written ``-alias`` instead of ``name`` when true."""
    path: bool = False
    """Each value is a path: refused outside the working directory (symlinks
    resolved), opened there and given to the command as its descriptor."""
    file_flag: bool = False
    """The value is written to a temporary file, removed after the call; ``name``
    is followed by the file's path."""


@dataclass(frozen=True)
class CliExecution:
    command: str
    args: tuple[str, ...]
    flags: tuple[CliFlag, ...]
    cwd: str | None
    timeout_ms: int
    allow_option_like_args: bool = False
    """``allowOptionLikeArgs``: a value starting with '-' may fill an operand."""
    pass_env: bool | tuple[str, ...] = False
    """``passEnv``: what of the process's environment the command gets besides
    the call's (``True``: all of it)."""
    extra_args: str | None = None
    """A property whose array is appended to argv, one item per element."""
    extra_args_allowed: bool = False
    """Whether ``extra_args`` may hold anything, and an operand (not a path) a
    value starting with ``-``: both refused (``ToolInputError``) unless the tool
    allows them."""
    working_directory: str | None = None
    """A property naming the working directory, taken against the sandbox root
    (which is the default) and refused outside it; path flags must lie inside it."""
    paths_by_name: bool = False
    """Path flags reach the command as absolute names, not descriptor paths."""
    timeout_property: str | None = None
    """A property whose whole seconds replace ``timeout_ms`` for one call."""
    script_from: int | None = None
    """argv items from this index on are one shell script: each quoted
    (``shlex.quote``) and joined with spaces, then ``script_suffix`` added."""
    script_suffix: str = ""
    script_operand: str | None = None
    """A property whose value, when given, is the whole script after ``-c`` (a
    shell tool's script): written as is, ``script_suffix`` added unless it ends so
    already, the items after it words of their own (the shell's ``$0``, ``$1``…);
    without it, the items are one quoted script as above."""
    templated: bool = True
    """``command``, ``args`` and ``cwd`` are MCI templates; False: literal words
    (an MTDF tool's command, whose ``{{`` is text)."""


@dataclass(frozen=True)
class FileExecution:
    path: TemplatedString
    enable_templating: bool


@dataclass(frozen=True)
class McpExecution:
    server_name: str
    tool_name: str
    timeout_ms: int | None = None
    """How long one call may wait for its answer unless the caller says otherwise
    (a broker config's ``tool_overrides.timeout``); None: the server's."""
    task_support: str = "forbidden"
    """The tool's ``execution.taskSupport`` on its server (MCP 2025-11-25):
    ``forbidden``, ``optional`` or ``required`` (a call must then be a task)."""


@dataclass(frozen=True)
class SequenceStep:
    tool: str
    """The name of the package's tool the step runs (never itself a sequence)."""
    label: str
    """The step as results name it (``cargo fmt``)."""
    skip_message: str
    """What the result says when the step is skipped (Ahma's words)."""
    args: dict[str, JSON]
    """The step's own arguments, which win over the call's."""
    skip_if_file_exists: str | None = None
    skip_if_file_missing: str | None = None


@dataclass(frozen=True)
class SequenceExecution:
    """Tools run in order, each given the call's arguments under its own, until
    one fails (MTDF's ``sequence``)."""

    steps: tuple[SequenceStep, ...]
    step_delay_ms: int
    defaults: dict[str, JSON] = field(default_factory=dict)
    """Arguments every step gets unless the call gives them."""


Execution = (
    TextExecution
    | HttpExecution
    | CliExecution
    | FileExecution
    | McpExecution
    | SequenceExecution
)


def execution_kind(execution: Execution) -> str:
    """The MCI ``type`` of an execution node."""
    return _KINDS[type(execution)]


_KINDS: dict[type, str] = {
    TextExecution: "text",
    HttpExecution: "http",
    CliExecution: "cli",
    FileExecution: "file",
    McpExecution: "mcp",
    SequenceExecution: "sequence",
}


@dataclass(frozen=True)
class PathPolicy:
    """Tool-level overrides of the schema's path settings; None means not set."""

    enable_any_paths: bool | None = None
    directory_allow_list: tuple[str, ...] | None = None


@dataclass(frozen=True)
class EffectivePathPolicy:
    """What a tool may touch once tool and schema settings are merged."""

    enable_any_paths: bool
    directory_allow_list: tuple[str, ...]


@dataclass(frozen=True)
class Tool:
    name: str
    description: str | None
    annotations: dict[str, JSON]
    tags: tuple[str, ...]
    input_schema: dict[str, JSON] | None
    execution: Execution
    disabled: bool
    path_policy: PathPolicy
    location: Location
    toolset: str | None = None
    """The toolset or MCP server the tool came from; None for the schema's own."""
    origin: str = "schema"
    """Where the tool was defined: "schema", "toolset" or "mcp" (a server's cache)."""
    output_schema: dict[str, JSON] | None = None
    """An MCP tool's ``outputSchema``: what its structured content holds."""
    background: str = "never"
    """Served over MCP, whether a call may go on in the background: ``never``,
    ``always``, or ``unless_asked`` (unless ``execution_mode`` is
    ``Synchronous``)."""
    probes: tuple[Probe, ...] = ()
    """What ``python -m pkg doctor`` runs to tell whether the tool can work here."""
    bundle: str | None = None
    """The Ahma bundle of an MTDF tool from one of Ahma's own tool files (``rust``
    for ``cargo``): served over MCP, unlisted until ``activate_tools`` reveals it."""


@dataclass(frozen=True)
class ToolsetRef:
    name: str
    filter: str | None
    filter_value: str | None
    location: Location
    name_location: Location


@dataclass(frozen=True)
class McpServer:
    name: str
    config: dict[str, JSON]
    location: Location
    name_location: Location


@dataclass(frozen=True)
class ToolOverride:
    """A broker config's ``tool_overrides`` entry for one tool of a source."""

    location: Location
    summary: str | None = None
    description: str | None = None
    """Replaces the tool's description everywhere (meta_desc, tools/list, the
    Python docstring)."""
    max_output_chars: int | None = None
    timeout_ms: int | None = None
    example_args: dict[str, JSON] | None = None
    render_mode: str = "json"


@dataclass(frozen=True)
class BrokerSource:
    """A broker config's ``source``: an MCP server mounted on a node, its tools
    leaves under it."""

    node: str
    """The node's path, normalized (``/repo/read``)."""
    server: McpServer
    """The server, named after the node; its ``config`` is an MCI stdio server
    (``command``, ``args``) whose strings are :class:`Template`s when they hold
    ``${VAR}`` (so a ``{{`` in the config stays text)."""
    patterns: tuple[str, ...] = ()
    """``tool_filter``: globs that allow, ``!``-globs that deny."""
    aliases: dict[str, str] = field(default_factory=dict)
    """``path_aliases``: the server's tool name -> the leaf's segment."""
    overrides: dict[str, ToolOverride] = field(default_factory=dict)
    """``tool_overrides``, by the server's tool name."""
    location: Location | None = None


@dataclass(frozen=True)
class Schema:
    """A whole MCI schema file, lowered (or an MTDF folder, or a broker config)."""

    source: str
    schema_version: str
    metadata: dict[str, JSON]
    tools: tuple[Tool, ...]
    toolsets: tuple[ToolsetRef, ...] = ()
    mcp_servers: tuple[McpServer, ...] = ()
    library_dir: str = DEFAULT_LIBRARY_DIR
    enable_any_paths: bool = False
    directory_allow_list: tuple[str, ...] = ()
    expires_at: str | None = None
    """A toolset file's ``expiresAt`` (MCP caches)."""
    tree_nodes: tuple[TreeNode, ...] = ()
    """A broker config's nodes (the root first); empty for other inputs, whose
    tree the planner lays out from the tools."""
    broker_sources: tuple[BrokerSource, ...] = ()


@dataclass(frozen=True)
class Parameter:
    """One keyword parameter of a generated function."""

    name: str
    python_name: str
    annotation: str
    required: bool
    default: JSON = None
    has_default: bool = False
    description: str | None = None


@dataclass(frozen=True)
class PlannedTool:
    tool: Tool
    python_name: str
    model_name: str
    group: str
    parameters: tuple[Parameter, ...] | None = field(default=None)
    """None when the tool takes ``**props`` (no inputSchema properties)."""
    path_policy: EffectivePathPolicy = EffectivePathPolicy(False, ())
    output_model_name: str | None = None
    """The model of the tool's structured content; None without an outputSchema."""


@dataclass(frozen=True)
class RuntimePolicy:
    """What the build decides for calls: their limits (non-default ones only, by
    name), the environment variables file templates may read beyond those the schema
    names (``--file-env``), what a command's environment is (``--cli-env``), and
    whether the kernel confines what a command writes (``--confine-cli``)."""

    limits: tuple[tuple[str, int], ...] = ()
    file_env: tuple[str, ...] = ()
    cli_env: str = "inherit"
    confine_cli: bool = False
    """``--confine-cli``: a cli tool's command may write only beneath the base
    directory and the directories of its allow list (Landlock)."""


DEFAULT_POLICY = RuntimePolicy()


@dataclass(frozen=True)
class BuildOptions:
    """How to emit: the import name, where the schema's directory is seen from the
    package directory (relative, so output has no absolute paths), the whitespace
    mode, the runtime policy.
    """

    name: str
    schema_dir: str = "."
    whitespace: str = "compat"
    policy: RuntimePolicy = DEFAULT_POLICY
    vendor_runtime: bool = False
    """Whether the package carries the runtime (``_runtime/``) instead of importing
    the ``mcigen-runtime`` library."""
    source_path: str = ""
    """The input's path relative to the package directory (the manifest's
    ``"build"`` entry names it); empty when the package was not built from a file."""
    source_format: str = "mci"
    project: bool = False
    """Whether the package lies in a project (``--project``) whose directory is its
    parent."""


@dataclass(frozen=True)
class Package:
    """The planned package: every enabled tool with its Python name and group."""

    schema: Schema
    tools: tuple[PlannedTool, ...]
    tree: Tree = Tree((TreeNode("/", ""),), ())
    """What the broker's meta-tools serve."""
