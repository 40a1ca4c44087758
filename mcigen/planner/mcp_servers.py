"""MCP servers: their tools come from ``{libraryDir}/mcp/{server}.mci.json``, the cache
mci-py also reads and writes, or from the server itself when the cache is missing
or expired.

The cache is a toolset file with an ``expiresAt`` date; it is written in mci-py's
format, byte for byte, so that both tools share one cache, except that it keeps a
tool's ``outputSchema`` and its ``taskSupport`` (in the entry's ``execution``), and
that its metadata holds ``mcigenServer``, a hash of the settings the tools were
fetched from (mci-py's reader ignores all three). Server
settings may use ``{{env.VAR}}``: they are resolved from the build environment for
fetching only.

A cache is used only for the settings it was fetched from: one whose
``mcigenServer`` names other settings (the server's command changed, or a broker
config's nodes were renamed) is fetched again, or refused when nothing may
connect. A cache without it was written by mci-py, and is trusted as mci-py
trusts it, by its server's name; but not for a broker config, whose caches only
mcigen writes.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import shutil
import tempfile
from collections.abc import Callable, Mapping
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mcigen_runtime.limits import DEFAULT
from mcigen_runtime.templating.compiler import compile_renderer
from mcigen_runtime.templating.lookup import TemplateRuntimeError
from mcigen_runtime.templating.syntax import Placeholder, Template, Text

from .. import ir
from ..diagnostics import Diagnostics, Level, quoted
from ..file_modes import file_mode
from ..frontend.mci import load_schema
from ..mcp_mode import McpMode
from ..setting_templates import setting_template
from .contained import UnusableName, path_inside
from .filters import apply_filter

if TYPE_CHECKING:
    from mcigen_runtime.executors.mcp.calls import McpServerParams

DEFAULT_EXPIRY_DAYS = 30
FINGERPRINT = "mcigenServer"
"""The cache's metadata key holding :func:`settings_fingerprint`."""
_UNKNOWN_IS_NO_PROBLEM = (Level.NOTE, Level.NOTE)

_HINT_TAGS = (
    ("readOnlyHint", "IsReadOnly"),
    ("destructiveHint", "IsDestructive"),
    ("idempotentHint", "IsIdempotent"),
    ("openWorldHint", "IsOpenWorld"),
)
_ANNOTATION_KEYS = ("title", *(hint for hint, _ in _HINT_TAGS))
_AUDIENCES = ("user", "assistant")
_TASKS = ("optional", "required")
"""The ``execution.taskSupport`` a cache keeps: what a server may list besides
the default, ``forbidden``."""


@dataclasses.dataclass(frozen=True)
class McpAccess:
    """When the planner talks to MCP servers, and the variables their settings'
    ``{{env.X}}`` read when it does (None: the build's environment)."""

    mode: McpMode = McpMode.CACHE
    environment: Mapping[str, str] | None = None
    announce: Callable[[str], None] | None = None
    """Told, before a server is started (or an HTTP server reached) to list its
    tools, which one and how, its settings as written: the command line says so
    on stderr, since starting a program is not what one expects of ``check``."""
    kept: list[McpServerParams] | None = None
    """None: a server started to list its tools is stopped once listed (a build
    only lists). A list (``MCIClient``'s build, whose process calls the tools
    next): the server is left running for those calls, its settings added here
    so that the builder can stop it when the package does not call it."""


def cache_path(library: Path, server: str) -> Path:
    """Where the cache of ``server`` lives; UnusableName if that is not in
    ``{library}/mcp`` (the name itself, or the cache file as a symbolic link)."""
    folder = library / "mcp"
    path_inside(folder, server)
    return path_inside(folder, f"{server}.mci.json")


def load_mcp_tools(
    schema: ir.Schema,
    library: Path,
    access: McpAccess,
    whitespace: str,
    diagnostics: Diagnostics,
) -> list[ir.Tool]:
    """The tools of every MCP server of the schema, filtered as its config says."""
    tools: list[ir.Tool] = []
    for server in schema.mcp_servers:
        found = server_tools(
            server, library, access, schema.schema_version, whitespace, diagnostics
        )
        config = server.config.get("config") or {}
        kept = apply_filter(
            found,
            config.get("filter"),
            config.get("filterValue"),
            server.location,
            diagnostics,
        )
        tools.extend(
            dataclasses.replace(tool, toolset=server.name, origin="mcp")
            for tool in kept
        )
    return tools


def server_tools(
    server: ir.McpServer,
    library: Path,
    access: McpAccess,
    schema_version: str,
    whitespace: str,
    diagnostics: Diagnostics,
    *,
    unbound_is_mcigens: bool = False,
) -> list[ir.Tool] | None:
    """The tools of ``server``, from its cache or from the server itself; None
    (and an error) when they cannot be known. ``unbound_is_mcigens``: a cache
    without a fingerprint is not mci-py's, and so not to be trusted."""
    try:
        cache = cache_path(library, server.name)
    except UnusableName as problem:
        diagnostics.error(server.name_location, f"MCP server name refused: {problem}")
        return None
    fetcher = _ServerTools(server, cache, whitespace, access, unbound_is_mcigens)
    found = fetcher.tools(access.mode, schema_version, diagnostics)
    if not fetcher.started:  # had it been started, that would say it is missing
        missing = command_not_found(server)
        if missing is not None:
            diagnostics.warning(
                server.location,
                f"MCP server {quoted(server.name)} runs {quoted(missing)}, which is not on PATH: "
                "calling its tools fails here until the command is installed (or "
                "the server is given its full path)",
            )
    return found


def settings_fingerprint(server: ir.McpServer) -> str:
    """A hash of what decides which server answers: its type, command, args and
    URL as written (``{{env.X}}``, ``${X}`` unresolved), and the names of its
    ``env`` and ``headers`` (not their values: a written secret is no part of a
    cache)."""
    config = server.config
    settings = {
        "type": config.get("type", "stdio"),
        "command": _as_written(config.get("command")),
        "args": [_as_written(arg) for arg in config.get("args") or ()],
        "url": _as_written(config.get("url")),
        "env": sorted(config.get("env") or {}),
        "headers": sorted(config.get("headers") or {}),
    }
    text = json.dumps(settings, sort_keys=True, ensure_ascii=True)
    return "sha256:" + hashlib.sha256(text.encode("ascii")).hexdigest()


def _as_written(value: object) -> object:
    """A setting as written: a broker command's word (a template of text and
    ``env.NAME`` placeholders) with each placeholder as ``${NAME}`` again (every
    ``${NAME}`` of a word is one, so no text reads the same)."""
    if not isinstance(value, Template):
        return value
    return "".join(
        (
            node.value
            if isinstance(node, Text)
            else f"${{{node.source.removeprefix('env.')}}}"
        )
        for node in value.nodes
        if isinstance(node, Text | Placeholder)
    )


def command_not_found(server: ir.McpServer) -> str | None:
    """The command of a STDIO server, if it is a name or an absolute path as
    written (no placeholder) that names no program here."""
    command = server.config.get("command")
    if server.config.get("type") == "http" or not isinstance(command, str):
        return None
    if "{{" in command or "${" in command or ("/" in command and command[0] != "/"):
        return None
    return command if shutil.which(command) is None else None


@dataclasses.dataclass
class _ServerTools:
    server: ir.McpServer
    cache: Path
    whitespace: str
    access: McpAccess
    unbound_is_mcigens: bool
    started: bool = False
    """Whether the server was started (or reached) to list its tools."""

    def tools(
        self, mode: McpMode, schema_version: str, diagnostics: Diagnostics
    ) -> list[ir.Tool] | None:
        name = self.server.name
        cached = None if mode is McpMode.REFRESH else self._cached(mode, diagnostics)
        if cached is not None and not self._bound(cached):
            if not self._fetch_unbound(cached, mode, diagnostics):
                return None
            return self._fetched(schema_version, None, diagnostics)
        if cached is not None and _fresh(cached):
            return list(cached.tools)
        if mode is McpMode.OFFLINE:
            return self._stale(
                cached,
                diagnostics,
                f"the cached tools of MCP server {quoted(name)} in {self.cache} "
                f"{_expiry_phrase(cached)}; using them anyway (--offline)",
                f"MCP server {quoted(name)} has no cached tools at {self.cache}; "
                "build once without --offline to fetch them",
            )
        if mode is McpMode.NO_CONNECT:
            return self._stale(
                cached,
                diagnostics,
                f"the cached tools of MCP server {quoted(name)} in {self.cache} "
                f"{_expiry_phrase(cached)}; checking against them (--no-connect)",
                f"MCP server {quoted(name)} has no cached tools at {self.cache}; "
                "its tools are not checked (--no-connect)",
                levels=_UNKNOWN_IS_NO_PROBLEM,
            )
        return self._fetched(schema_version, cached, diagnostics)

    def _fetched(
        self, schema_version: str, cached: ir.Schema | None, diagnostics: Diagnostics
    ) -> list[ir.Tool] | None:
        """The tools the server lists now, written to the cache; ``cached`` when it
        cannot be reached."""
        # late: the runtime's MCP calls load pydantic and the results, which a build
        # of a schema without MCP servers (or with their tools cached) never needs
        from mcigen_runtime.executors.mcp.calls import McpConnectionError

        name = self.server.name
        self.started = True
        if self.access.announce is not None:
            self.access.announce(_started(self.server))
        try:
            document = self._fetch(schema_version)
        except (McpConnectionError, TemplateRuntimeError) as error:
            return self._stale(
                cached,
                diagnostics,
                f"cannot refresh the tools of MCP server {quoted(name)} ({error}); "
                f"using the expired cache {self.cache}",
                f"cannot fetch the tools of MCP server {quoted(name)}: {error}",
            )
        _write_atomically(self.cache, json.dumps(document, indent=2))
        written, found = load_schema(
            self.cache, toolset_file=True, whitespace=self.whitespace
        )
        diagnostics.extend(found.items)
        return None if written is None else list(written.tools)

    def _bound(self, cached: ir.Schema) -> bool:
        """Whether ``cached`` was fetched from this server's settings as they are."""
        fingerprint = cached.metadata.get(FINGERPRINT)
        if fingerprint is None:
            return not self.unbound_is_mcigens
        return bool(fingerprint == settings_fingerprint(self.server))

    def _fetch_unbound(
        self, cached: ir.Schema, mode: McpMode, diagnostics: Diagnostics
    ) -> bool:
        """Whether to fetch the tools of a cache fetched from other settings,
        having said so: not offline (an error) nor without connecting (a note:
        its tools are unknown); otherwise yes (a note)."""
        name = self.server.name
        if FINGERPRINT in cached.metadata:
            other = (
                f"the cache {self.cache} of MCP server {quoted(name)} was fetched from "
                "other settings (its command, args, url, or names of env or headers "
                "differ, or it belongs to another node)"
            )
        else:
            other = (
                f"the cache {self.cache} of MCP server {quoted(name)} does not say which "
                f"settings it was fetched from (no {quoted(FINGERPRINT)} in its metadata)"
            )
        if mode is McpMode.OFFLINE:
            diagnostics.error(
                self.server.location,
                f"{other}; build once without --offline to fetch its tools again",
            )
            return False
        if mode is McpMode.NO_CONNECT:
            diagnostics.add(
                Level.NOTE,
                self.server.location,
                f"{other}; its tools are not checked (--no-connect)",
            )
            return False
        diagnostics.add(
            Level.NOTE, self.server.location, f"{other}; fetching its tools again"
        )
        return True

    def _stale(
        self,
        cached: ir.Schema | None,
        diagnostics: Diagnostics,
        using: str,
        missing: str,
        levels: tuple[Level, Level] = (Level.WARNING, Level.ERROR),
    ) -> list[ir.Tool] | None:
        """The tools of a cache that is not fresh, saying so (at the first of
        ``levels``), when there is one; otherwise None, and ``missing`` (at the
        second)."""
        using_level, missing_level = levels
        if cached is None:
            diagnostics.add(missing_level, self.server.location, missing)
            return None
        diagnostics.add(using_level, self.server.location, using)
        return list(cached.tools)

    def _cached(self, mode: McpMode, diagnostics: Diagnostics) -> ir.Schema | None:
        """The cache, when it exists and reads cleanly. An unreadable cache is an
        error offline, and otherwise a warning before it is fetched again."""
        if not self.cache.is_file():
            return None
        cached, found = load_schema(
            self.cache, toolset_file=True, whitespace=self.whitespace
        )
        if cached is not None or mode is McpMode.OFFLINE:
            diagnostics.extend(found.items)
        elif mode is not McpMode.NO_CONNECT:
            diagnostics.warning(
                self.server.location,
                f"the cache {self.cache} of MCP server {quoted(self.server.name)} has "
                "errors; fetching the tools again",
            )
        return cached

    def _fetch(self, schema_version: str) -> dict[str, Any]:
        from mcigen_runtime.executors.mcp.calls import list_mcp_tools

        params = _build_time_params(self.server, self.access.environment)
        kept = self.access.kept
        if kept is not None:  # before listing: a listing that fails may leave it open
            kept.append(params)
        listed = list_mcp_tools(params, keep=kept is not None)
        expires = datetime.now(UTC).date() + timedelta(days=_expiry_days(self.server))
        name = self.server.name
        return {
            "schemaVersion": schema_version,
            "metadata": {
                "name": name,
                "description": f"MCP server: {name}",
                FINGERPRINT: settings_fingerprint(self.server),
            },
            "tools": [_cache_entry(name, tool) for tool in listed],
            "expiresAt": expires.isoformat(),
        }


def _started(server: ir.McpServer) -> str:
    """Which server is reached to list its tools, and how, as written (a
    ``{{env.X}}`` or ``${X}`` unresolved: its value may be a secret)."""
    config = server.config
    name = server.name
    if config.get("type") == "http":
        return f"reaching MCP server {quoted(name)} at {config.get('url')} to list its tools"
    words = [config.get("command"), *(config.get("args") or ())]
    command = " ".join(str(_as_written(word)) for word in words)
    return f"starting MCP server {quoted(name)} to list its tools: {command}"


def _fresh(cached: ir.Schema) -> bool:
    """mci-py's rule: usable while the expiry date is after today (UTC); a cache
    without a readable date counts as expired."""
    expires = _expiry_date(cached)
    return expires is not None and expires > datetime.now(UTC).date()


def _expiry_date(cached: ir.Schema) -> date | None:
    try:
        return datetime.fromisoformat(cached.expires_at or "").date()
    except ValueError:
        return None


def _expiry_phrase(cached: ir.Schema | None) -> str:
    expires = None if cached is None else _expiry_date(cached)
    return "have no expiry date" if expires is None else f"expired on {expires}"


def _expiry_days(server: ir.McpServer) -> int:
    config = server.config.get("config") or {}
    days = config.get("expDays")
    return days if isinstance(days, int) else DEFAULT_EXPIRY_DAYS


def _build_time_params(
    server: ir.McpServer, environment: Mapping[str, str] | None
) -> McpServerParams:
    """The server's settings with ``{{env.X}}`` taken from ``environment``, the
    build's own when None, rendered as the runtime renders a file's contents."""
    from mcigen_runtime.executors.mcp.calls import McpServerParams

    context: dict[str, Any] = {
        "env": dict(os.environ if environment is None else environment)
    }

    def resolve(text: str | Template) -> str:
        render = compile_renderer(setting_template(text))
        return render(context, DEFAULT.text_output)

    config = server.config
    pairs = {
        key: tuple((k, resolve(v)) for k, v in (config.get(key) or {}).items())
        for key in ("env", "headers")
    }
    if config.get("type") == "http":
        params = McpServerParams(
            server.name, url=resolve(config["url"]), headers=pairs["headers"]
        )
    else:
        params = McpServerParams(
            server.name,
            command=resolve(config["command"]),
            args=tuple(resolve(arg) for arg in config.get("args") or ()),
            env=pairs["env"],
        )
    # the listing, every page of it, waits as long as a call of the package would
    timeout_ms = (config.get("config") or {}).get("timeout_ms")
    if isinstance(timeout_ms, int):
        return dataclasses.replace(params, call_timeout=timeout_ms / 1000)
    return params


def _cache_entry(server: str, listed: dict[str, Any]) -> dict[str, Any]:
    """One tool of the cache, with mci-py's keys in mci-py's order, the
    ``outputSchema`` after the ``inputSchema`` when the server gives one, and
    the tool's ``execution.taskSupport`` in the cache's ``execution`` when the
    server lists one other than ``forbidden`` (the cache's ``execution`` is
    MCI's: how to call the tool)."""
    wire = listed.get("annotations") or {}
    annotations = {k: wire[k] for k in _ANNOTATION_KEYS if wire.get(k) is not None}
    audience = wire.get("audience")
    if not isinstance(audience, list) or not all(r in _AUDIENCES for r in audience):
        audience = []
    if audience:
        annotations["audience"] = audience
    tags = [tag for hint, tag in _HINT_TAGS if wire.get(hint)]
    tags += [f"audience_{role}" for role in audience]
    entry: dict[str, Any] = {
        "name": listed["name"],
        "disabled": False,
        "annotations": annotations,
        "description": listed.get("description") or "",
    }
    if listed.get("inputSchema") is not None:
        entry["inputSchema"] = listed["inputSchema"]
    if listed.get("outputSchema") is not None:
        entry["outputSchema"] = listed["outputSchema"]
    entry["execution"] = {
        "type": "mcp",
        "serverName": server,
        "toolName": listed["name"],
    }
    task_support = (listed.get("execution") or {}).get("taskSupport")
    if task_support in _TASKS:
        entry["execution"]["taskSupport"] = task_support
    entry.update({"enableAnyPaths": False, "directoryAllowList": [], "tags": tags})
    return entry


def _write_atomically(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            os.fchmod(handle, file_mode())
            out.write(text)
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise
