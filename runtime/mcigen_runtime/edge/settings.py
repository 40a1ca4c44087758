"""The options of ``serve`` and of the ASGI app, and which tools they expose under
which names. Nothing here imports the MCP SDK, so ``python -m PKG list`` (whose
parser knows the ``serve`` options) never pays for it.

Tool names: MCP tool names are ``^[A-Za-z0-9_.-]{1,64}$`` here (the spec's
character set, SEP-986; capped at 64 characters because common clients refuse
longer names). A name that fits is used as is. Any other name is exposed as
``<base>_<hash>``: ``base`` is the name with every run of other characters replaced
by ``_`` and cut to 50 characters, ``hash`` the first 8 hex digits of the SHA-256 of
the UTF-8 name (more digits if that would clash with another tool's name). The
mapping is computed over all tools of the package, so it does not change with the
filters, and it never produces a name another tool has. The framework adapters name
tools by the same rule without the dot (``adapters/toolbox.py``).
"""

from __future__ import annotations

import argparse
import hashlib
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from ..manifest import ToolEntry
from .logs import add_log_arguments, shown_host
from .origin_policy import host_entry, origin_entry

HTTP_PATH = "/mcp"
DEFAULT_HOST = "127.0.0.1"

MCP_TOOL_NAME = re.compile(r"[A-Za-z0-9_.-]{1,64}")
"""The tool names exposed as they are; others are mapped (see the module docs)."""

_INVALID_RUN = re.compile(r"[^A-Za-z0-9_.-]+")
_BASE_CHARS = 50

ENV_PREFIX = "MCIGEN_"

_TRUE = frozenset({"1", "true", "yes", "on"})
_FALSE = frozenset({"", "0", "false", "no", "off"})


@dataclass(frozen=True)
class ServeOptions:
    """Which tools to expose, and how. ``None`` filters select everything."""

    only: frozenset[str] | None = None
    exclude: frozenset[str] | None = None
    tags: frozenset[str] | None = None
    without_tags: frozenset[str] | None = None
    toolsets: frozenset[str] | None = None
    """Keep the tools of these toolsets or MCP servers (by name)."""
    broker: bool = False
    max_output_chars: int | None = None
    secret: str | None = field(default=None, repr=False)
    allowed_hosts: frozenset[str] = frozenset()
    """HTTP: host names served besides IP addresses and localhost (see
    ``http_origin``)."""
    allowed_origins: frozenset[str] = frozenset()
    """HTTP: browser origins allowed besides the loopback ones."""
    log_arguments: bool = False
    """Whether a tool call's log line holds its arguments' values (see ``logs``)."""


def checked_secret(secret: str | None, source: str) -> str | None:
    """``secret`` as given by ``source`` (``--secret``, ``MCIGEN_SECRET``); None
    when it is not given. Raises ``ValueError`` naming ``source`` for a secret no
    client could send or that guards nothing: empty, only whitespace, with
    whitespace around it (a header's value loses it), or not UTF-8 (bytes the
    environment could not decode)."""
    if secret is None:
        return None
    if not secret.strip():
        raise ValueError(f"{source} is empty: give a secret, or leave it unset")
    if secret != secret.strip():
        raise ValueError(f"{source} must not begin or end with whitespace")
    try:
        secret.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError(f"{source} is not UTF-8 text") from None
    return secret


def secret_from(given: str | None, given_as: str, env: Mapping[str, str]) -> str | None:
    """The secret ``given`` on the command line (as ``given_as``), else that of
    ``MCIGEN_SECRET`` in ``env``; raises ``ValueError`` for a bad one (see
    :func:`checked_secret`)."""
    if given is not None:
        return checked_secret(given, given_as)
    return checked_secret(env.get(ENV_PREFIX + "SECRET"), ENV_PREFIX + "SECRET")


_LOOPBACK = frozenset({"127.0.0.1", "localhost", "::1"})


def unguarded_warning(host: str, secret: str | None) -> str | None:
    """What ``serve --http`` and ``broker`` say when they serve ``host`` without
    a secret; None with one, or on a loopback address, which only this machine
    reaches."""
    if secret or host in _LOOPBACK:
        return None
    return (
        f"serving {shown_host(host)} without a secret (--secret or "
        f"{ENV_PREFIX}SECRET): anyone who can reach it can call the tools"
    )


def split_list(text: str | None) -> frozenset[str] | None:
    """A comma-separated list; ``None`` when it names nothing."""
    if text is None:
        return None
    items = frozenset(item.strip() for item in text.split(",") if item.strip())
    return items or None


def allowed_from_environment(
    env: Mapping[str, str],
) -> tuple[frozenset[str], frozenset[str]]:
    """The hosts of ``MCIGEN_ALLOWED_HOSTS`` and the origins of
    ``MCIGEN_ALLOWED_ORIGINS`` (comma-separated). Raises ``ValueError`` naming the
    variable for an entry that is not a host name or an origin."""
    return (
        _entries(env, "ALLOWED_HOSTS", host_entry),
        _entries(env, "ALLOWED_ORIGINS", origin_entry),
    )


def _entries(
    env: Mapping[str, str], name: str, entry: Callable[[str], str]
) -> frozenset[str]:
    try:
        return frozenset(
            entry(text) for text in split_list(env.get(ENV_PREFIX + name)) or ()
        )
    except ValueError as error:
        raise ValueError(f"{ENV_PREFIX}{name}: {error}") from None


def options_from_environment(env: Mapping[str, str]) -> ServeOptions:
    """``MCIGEN_SECRET``, ``MCIGEN_ONLY``, ``MCIGEN_EXCEPT``, ``MCIGEN_TAGS``,
    ``MCIGEN_WITHOUT_TAGS``, ``MCIGEN_BROKER`` (1/true/yes/on),
    ``MCIGEN_MAX_OUTPUT_CHARS`` (broker mode only), ``MCIGEN_ALLOWED_HOSTS`` and
    ``MCIGEN_ALLOWED_ORIGINS``. Empty values count as unset, but for the secret:
    raises ``ValueError`` naming the variable for a bad value (an empty secret
    too, see :func:`checked_secret`)."""

    def get(name: str) -> str | None:
        value = env.get(ENV_PREFIX + name, "").strip()
        return value or None

    broker_text = (get("BROKER") or "").lower()
    if broker_text not in _TRUE | _FALSE:
        raise ValueError(
            f"{ENV_PREFIX}BROKER must be 1/true or 0/false, not {broker_text!r}"
        )
    max_chars_text = get("MAX_OUTPUT_CHARS")
    max_chars = None
    if max_chars_text is not None:
        try:
            max_chars = positive_int(max_chars_text)
        except argparse.ArgumentTypeError as error:
            raise ValueError(f"{ENV_PREFIX}MAX_OUTPUT_CHARS: {error}") from None
    hosts, origins = allowed_from_environment(env)
    return ServeOptions(
        only=split_list(get("ONLY")),
        exclude=split_list(get("EXCEPT")),
        tags=split_list(get("TAGS")),
        without_tags=split_list(get("WITHOUT_TAGS")),
        toolsets=split_list(get("TOOLSETS")),
        broker=broker_text in _TRUE,
        max_output_chars=max_chars,
        secret=secret_from(None, "", env),
        allowed_hosts=hosts,
        allowed_origins=origins,
    )


def select_tools(tools: Iterable[ToolEntry], options: ServeOptions) -> list[ToolEntry]:
    """mci-py's filters, combined by intersection: ``only`` / ``exclude`` by MCI
    name, ``tags`` keeps tools with at least one of the tags, ``without_tags``
    drops tools with any of them (tags match exactly, case-sensitively), ``toolsets``
    keeps the tools of the toolsets or MCP servers named."""
    selected = []
    for tool in tools:
        if options.only is not None and tool.name not in options.only:
            continue
        if options.exclude is not None and tool.name in options.exclude:
            continue
        if options.tags is not None and options.tags.isdisjoint(tool.tags):
            continue
        if options.without_tags is not None and not options.without_tags.isdisjoint(
            tool.tags
        ):
            continue
        if options.toolsets is not None and tool.toolset not in options.toolsets:
            continue
        selected.append(tool)
    return selected


FILTER_OPTIONS = {
    "only": "--only",
    "except": "--except",
    "tags": "--tags",
    "without-tags": "--without-tags",
    "toolsets": "--toolsets",
}
"""mcix's ``--filter TYPE:VALUES`` types -> the ``serve`` option each one is."""


def filter_spec(text: str) -> tuple[str, frozenset[str]]:
    """``--filter TYPE:VALUES`` (mcix's spelling of the filters) as ``(TYPE,
    names)``; raises ``argparse.ArgumentTypeError`` for what mcix refuses too: no
    ``:``, a type it does not know (spaces around it are dropped, case counts), or
    no value."""
    kind, colon, values = text.partition(":")
    kind = kind.strip()
    types = ", ".join(FILTER_OPTIONS)
    if not colon:
        raise argparse.ArgumentTypeError(
            f"expected TYPE:VALUES with TYPE one of {types}, not {text!r}"
        )
    if kind not in FILTER_OPTIONS:
        raise argparse.ArgumentTypeError(
            f"unknown filter type {kind!r} in {text!r}: use one of {types}"
        )
    names = split_list(values)
    if names is None:
        raise argparse.ArgumentTypeError(f"{text!r} names no {kind}")
    return kind, names


def filters_of(args: argparse.Namespace) -> ServeOptions:
    """The options that only filter the tools, from ``serve``'s arguments
    (:func:`add_serve_arguments`): ``--only``, ``--except``, ... and the
    ``--filter``s that spell them as mcix does. Raises ``ValueError`` when one
    filter is given twice."""
    given = {
        "only": split_list(args.only),
        "except": split_list(args.exclude),
        "tags": split_list(args.tags),
        "without-tags": split_list(args.without_tags),
        "toolsets": split_list(args.toolsets),
    }
    for kind, names in args.filters or ():
        if given[kind] is not None:
            raise ValueError(
                f"the {kind} filter is given twice ({FILTER_OPTIONS[kind]} or "
                f"--filter {kind}:...): give it once"
            )
        given[kind] = names
    return ServeOptions(
        only=given["only"],
        exclude=given["except"],
        tags=given["tags"],
        without_tags=given["without-tags"],
        toolsets=given["toolsets"],
    )


def unknown_names(
    tools: Sequence[ToolEntry], options: ServeOptions
) -> list[tuple[str, str]]:
    """(option, name) for the names given to ``only`` / ``except`` that no tool
    has, and to ``toolsets`` that no tool comes from: likely typos."""
    known = {tool.name for tool in tools}
    sources = {tool.toolset for tool in tools if tool.toolset is not None}
    given = (
        ("ONLY", options.only, known),
        ("EXCEPT", options.exclude, known),
        ("TOOLSETS", options.toolsets, sources),
    )
    return [
        (option, name)
        for option, names, there in given
        for name in sorted((names or frozenset()) - there)
    ]


def unknown_said(option: str, name: str) -> str:
    """What is wrong with ``name``, one of ``unknown_names``."""
    if option == "TOOLSETS":
        return f"no tool comes from a toolset or MCP server called {name!r}"
    return f"no tool is called {name!r}"


# --------------------------------------------------------------------------- names


def mcp_tool_names(names: Iterable[str]) -> dict[str, str]:
    """MCI tool name -> the name MCP clients see (see the module docs for the rule).

    Valid names map to themselves; the others to ``<base>_<hash>``, never equal to
    another tool's name nor to each other."""
    return valid_tool_names(names, MCP_TOOL_NAME, _INVALID_RUN)


def valid_tool_names(
    names: Iterable[str], valid: re.Pattern[str], invalid_run: re.Pattern[str]
) -> dict[str, str]:
    """MCI tool name -> a name that fully matches ``valid`` (at most 64 characters):
    the rule of the module docs, with ``invalid_run`` matching the runs of
    characters that ``valid`` does not allow."""
    names = list(dict.fromkeys(names))
    taken = {name for name in names if valid.fullmatch(name)}
    mapped: dict[str, str] = {name: name for name in taken}
    for name in sorted(n for n in names if n not in taken):
        digest = hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()
        base = invalid_run.sub("_", name)[:_BASE_CHARS] or "tool"
        for digits in range(8, len(digest) + 1):
            candidate = f"{base[: 64 - 1 - digits]}_{digest[:digits]}"
            if candidate not in taken:
                break
        else:  # pragma: no cover - would need a SHA-256 collision
            raise ValueError(f"cannot give the tool {name!r} a unique name")
        taken.add(candidate)
        mapped[name] = candidate
    return mapped


def positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


def parse_address(text: str) -> tuple[str, int]:
    """``HOST:PORT``, ``:PORT`` or ``PORT`` (host 127.0.0.1); ``[::1]:PORT`` for IPv6."""
    host, colon, port_text = text.rpartition(":")
    if not colon:
        host, port_text = "", text
    host = host[1:-1] if host.startswith("[") and host.endswith("]") else host
    try:
        port = int(port_text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected HOST:PORT or :PORT, not {text!r}"
        ) from None
    if not 1 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"port out of range: {port}")
    return host or DEFAULT_HOST, port


def _argument_type(entry: Callable[[str], str]) -> Callable[[str], str]:
    """``entry`` as an argparse type: its ``ValueError`` is the usage message."""

    def checked(text: str) -> str:
        try:
            return entry(text)
        except ValueError as error:
            raise argparse.ArgumentTypeError(str(error)) from None

    return checked


def add_serve_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``serve`` (needs no MCP import)."""
    parser.add_argument(
        "--http",
        metavar="HOST:PORT",
        type=parse_address,
        help=f"serve Streamable HTTP at {HTTP_PATH} (HOST defaults to {DEFAULT_HOST}); "
        "default: stdio",
    )
    parser.add_argument(
        "--secret",
        help="HTTP only: require 'Authorization: Bearer SECRET' on every request "
        f"(default: ${ENV_PREFIX}SECRET, which keeps it out of the process list)",
    )
    parser.add_argument(
        "--allow-host",
        dest="allow_hosts",
        action="append",
        type=_argument_type(host_entry),
        metavar="NAME[:PORT]",
        help="HTTP only: also answer requests for the host name NAME (IP addresses "
        "and localhost always are), on any port or on PORT; repeatable; adds to "
        f"${ENV_PREFIX}ALLOWED_HOSTS",
    )
    parser.add_argument(
        "--allow-origin",
        dest="allow_origins",
        action="append",
        type=_argument_type(origin_entry),
        metavar="ORIGIN",
        help="HTTP only: also accept browser requests from ORIGIN "
        "(scheme://host[:port]; loopback origins always are); repeatable; adds to "
        f"${ENV_PREFIX}ALLOWED_ORIGINS",
    )
    parser.add_argument(
        "--workers",
        type=positive_int,
        default=1,
        metavar="N",
        help="HTTP only: serve with N worker processes, each binding HOST:PORT "
        "(SO_REUSEPORT) in a session of its own, supervised by this one",
    )
    add_sandbox_arguments(parser)
    parser.add_argument(
        "--only", metavar="NAMES", help="expose only these tools (comma-separated)"
    )
    parser.add_argument(
        "--except",
        dest="exclude",
        metavar="NAMES",
        help="do not expose these tools (comma-separated)",
    )
    parser.add_argument(
        "--tags", metavar="TAGS", help="expose tools with at least one of these tags"
    )
    parser.add_argument(
        "--without-tags", metavar="TAGS", help="hide tools with any of these tags"
    )
    parser.add_argument(
        "--toolsets",
        metavar="NAMES",
        help="expose the tools of these toolsets and MCP servers (comma-separated; "
        "mcix's --filter toolsets:NAMES)",
    )
    parser.add_argument(
        "--filter",
        dest="filters",
        action="append",
        type=filter_spec,
        metavar="TYPE:VALUES",
        help="mcix's spelling of the filters above: only:NAMES, except:NAMES, "
        "tags:TAGS, without-tags:TAGS or toolsets:NAMES (repeatable, one per type)",
    )
    parser.add_argument(
        "--broker",
        action="store_true",
        help="expose meta_tree, meta_desc and meta_call over the tools instead",
    )
    parser.add_argument(
        "--max-output-chars",
        type=positive_int,
        metavar="N",
        help="broker mode: cut tool output to N characters",
    )
    add_log_arguments(parser)


def add_sandbox_arguments(parser: argparse.ArgumentParser) -> None:
    """``--no-sandbox`` and ``--sandbox-scope``, of ``serve`` and ``broker``."""
    parser.add_argument(
        "--no-sandbox",
        action="store_true",
        help="MTDF tools: do not check working directories against the sandbox "
        "scopes nor confine what commands write (also: AHMA_DISABLE_SANDBOX=1)",
    )
    parser.add_argument(
        "--sandbox-scope",
        dest="sandbox_scopes",
        action="append",
        metavar="DIR",
        help="MTDF tools: work and write only beneath DIR (repeatable; the first "
        "is the default working directory), whatever roots the client names "
        f"(also: {ENV_PREFIX}SANDBOX_SCOPES, DIRs separated by ':')",
    )


def worker_count(argv: Sequence[str], env: Mapping[str, str]) -> int:
    """How many worker processes serve the app, as its server was told: uvicorn's
    or gunicorn's ``--workers N`` (gunicorn's ``-w N`` too) in ``argv`` (a worker
    process has its server's command line), else ``WEB_CONCURRENCY`` in ``env``
    (which both read); 1 when neither says, or says something that is no count."""
    program = argv[0].rsplit("/", 1)[-1] if argv else ""
    flags = ("--workers", "-w") if program.startswith("gunicorn") else ("--workers",)
    given: str | None = None
    for at, arg in enumerate(argv[1:], 1):
        for flag in flags:
            if arg == flag and at + 1 < len(argv):
                given = argv[at + 1]
            elif arg.startswith(flag + "="):
                given = arg.removeprefix(flag + "=")
            elif flag == "-w" and arg.startswith("-w") and arg[2:].isdigit():
                given = arg[2:]
    if given is None:
        given = env.get("WEB_CONCURRENCY")
    try:
        count = int(given or 1)
    except ValueError:
        return 1
    return max(count, 1)
