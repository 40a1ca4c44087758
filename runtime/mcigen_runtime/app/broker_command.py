"""``python -m PKG broker [ADDR] [SECRET] [--dump-tree] [--log-level LEVEL]
[--ignore-broken-tool] [--check-start]``: the package's broker over pyMCPBroker's HTTP API
(``broker_http``).

Start-up, before the server listens:

1. every environment variable an MCP server of the package needs is checked; a
   missing one stops start-up (exit 2), naming the variable and the server;
2. every MCP server is started (its session opened, its tools listed); one that
   fails stops start-up (exit 2), unless ``--ignore-broken-tool``, which leaves its
   tools out of the tree with a warning saying why.

``--dump-tree`` prints the tree and exits, starting nothing. ``--check-start`` goes
through start-up, then exits (0) instead of listening.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import os
import shlex
import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING

from ..broker.meta_tools import Broker
from ..edge.logs import configure_logging, shown_host
from ..edge.settings import secret_from, unguarded_warning
from ..manifest import ToolEntry
from ..printable import printable
from ..registry import Registry, registry
from .broker_arguments import names_a_config

if TYPE_CHECKING:
    from starlette.applications import Starlette

    from ..edge.health import UpstreamServers


logger = logging.getLogger(__name__)


class StartupError(Exception):
    """Why the server cannot start: one line per problem."""


def run_broker(package: str, args: argparse.Namespace) -> int:
    """Run ``broker`` with the arguments of ``broker_arguments``."""
    if args.secret is not None and names_a_config(args.secret):
        for line in _config_as_secret(package, args.secret):
            print(
                printable(f"python -m {package} broker: error: {line}"), file=sys.stderr
            )
        return 2
    tools = registry(package)
    if args.dump_tree:
        for line in tree_lines(Broker(tools)):
            print(printable(line))
        return 0
    configure_logging(args.log_level, args.log_format, uvicorn=True)
    from ..edge.connections import process_limits
    from ..path_policy import CALL_SANDBOX
    from ..serve.sandbox import SandboxUnavailable, confines_commands, sandbox_policy

    try:
        secret = secret_from(args.secret, "SECRET", os.environ)
        process_limits()
        scopes = args.sandbox_scopes or []
        sandbox = sandbox_policy(tools, args.no_sandbox, scopes, os.environ)
    except (ValueError, SandboxUnavailable) as error:
        print(printable(f"python -m {package} broker: error: {error}"), file=sys.stderr)
        return 2
    if confines_commands(tools) or not sandbox.enabled:
        print(sandbox.describe(tools, asks_roots=False), file=sys.stderr, flush=True)
    # No client names roots over the broker's API: every call this process answers
    # works in the one sandbox (the server's tasks inherit it).
    CALL_SANDBOX.set(sandbox.without_client())
    try:
        kept = start_servers(tools, args.ignore_broken_tool)
        broker = Broker(tools, tools=kept, max_output_chars=args.max_output_chars)
        app = _app(broker, secret, _upstream(tools, kept), args.log_arguments)
    except StartupError as error:
        for line in str(error).splitlines():
            print(
                printable(f"python -m {package} broker: error: {line}"), file=sys.stderr
            )
        return 2
    if args.check_start:
        logger.info("the broker would start (tools: %d)", len(kept))
        return 0
    return _listen(app, args.address, secret, args.log_level, len(kept))


def _config_as_secret(package: str, secret: str) -> list[str]:
    shown = shlex.quote(secret)
    return [
        f"the secret {secret!r} is a file or a config's name, not a secret: the "
        "package was built from its config, so the command takes no config",
        f"to serve this package: python -m {package} broker ADDR [SECRET]",
        f"to build and serve a config: mcigen broker ADDR {shown} [SECRET]",
    ]


def tree_lines(broker: Broker) -> Iterator[str]:
    """The whole tree, depth first, a line per path (indented by depth): the path,
    its type and its summary."""

    def lines(path: str, kind: str, summary: str, depth: int) -> Iterator[str]:
        yield f"{'  ' * depth}{path}  ({kind})" + (f"  {summary}" if summary else "")
        if kind == "node":
            for child in broker.tree(path)["children"]:
                yield from lines(
                    child["path"], child["type"], child["summary"], depth + 1
                )

    yield from lines("/", "node", broker.desc("/")["summary"], 0)


def start_servers(tools: Registry, ignore_broken: bool) -> list[ToolEntry]:
    """Check every server's variables, then start every server; the tools of the
    servers that started (and the package's other tools). Raises
    :class:`StartupError`."""
    if not tools.servers:
        return list(tools.tools)
    # imported by name: a vendored runtime carries them only when the package has
    # MCP tools, which is when it has servers
    lookup = importlib.import_module("..templating.lookup", __package__)
    sessions = importlib.import_module("..executors.mcp.calls", __package__)
    missing = list(_missing_variables(tools, lookup.TemplateRuntimeError))
    if missing:
        raise StartupError("\n".join(missing))
    broken: dict[str, str] = {}
    for server in tools.servers:
        logger.info("starting MCP server '%s'", server.name)
        try:
            sessions.list_mcp_tools(tools.server_params(server.name, os.environ))
        except sessions.McpConnectionError as error:
            broken[server.name] = str(error)
    if broken and not ignore_broken:
        raise StartupError(
            "\n".join(
                [
                    *broken.values(),
                    "start with --ignore-broken-tool to leave such servers out",
                ]
            )
        )
    for reason in broken.values():
        logger.warning("left out, with its tools: %s", reason)
    return [entry for entry in tools.tools if entry.server not in broken]


def _missing_variables(tools: Registry, unresolved: type[Exception]) -> Iterator[str]:
    """A line for each variable a server needs that is not set (``unresolved``:
    what resolving a server's settings raises then)."""
    for server in tools.servers:
        try:
            tools.server_params(server.name, os.environ)
        except unresolved as error:
            names = [name for name in server.variables if name not in os.environ]
            if not names:  # pragma: no cover - a variable the manifest missed
                yield f"MCP server '{server.name}': {error}"
            for name in names:
                yield (
                    f"the environment variable {name} is not set; MCP server "
                    f"'{server.name}' needs it"
                )


def _upstream(tools: Registry, kept: list[ToolEntry]) -> UpstreamServers:
    """The MCP servers of the tools kept, and those left out, for ``/readyz``."""
    from ..edge.health import UpstreamServers

    serving = {entry.server for entry in kept if entry.server}
    left_out = {entry.server for entry in tools.tools if entry.server} - serving
    return UpstreamServers(tools, serving, os.environ, left_out)


def _app(
    broker: Broker, secret: str | None, upstream: UpstreamServers, log_arguments: bool
) -> Starlette:
    from ..broker.http_api import broker_app
    from ..edge.origin_policy import HostOriginPolicy
    from ..edge.settings import allowed_from_environment

    try:
        hosts, origins = allowed_from_environment(os.environ)
    except ValueError as error:
        raise StartupError(str(error)) from None

    policy = HostOriginPolicy.of_server(hosts, origins, secret)
    return broker_app(broker, policy, secret, upstream, log_arguments)


def _listen(
    app: Starlette,
    address: tuple[str, int],
    secret: str | None,
    level: str,
    tool_count: int,
) -> int:
    import uvicorn

    from ..broker.http_api import ENDPOINTS
    from ..edge.connections import GuardedH11Protocol, process_limits
    from ..edge.shutdown import run_uvicorn

    host, port = address
    unguarded = unguarded_warning(host, secret)
    if unguarded is not None:
        logger.warning("%s", unguarded)
    logger.info(
        "serving the broker (tools: %d) at http://%s:%d: POST %s",
        tool_count,
        shown_host(host),
        port,
        ", ".join(f"/{name}" for name in ENDPOINTS),
    )
    config = uvicorn.Config(
        app,
        host=host,
        port=port,
        log_config=None,  # configure_logging's handler writes uvicorn's lines too
        log_level=level.lower(),
        access_log=False,  # RequestLog writes the line of each request
        http=GuardedH11Protocol,
        backlog=process_limits().backlog,
    )
    return run_uvicorn(config)
