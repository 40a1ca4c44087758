"""The sandbox a served package's commands run in, as Ahma's server has it.

Its scopes are the directories the MCP client names as its roots (``roots/list``,
asked once per session and again after ``notifications/roots/list_changed``), or
the ``--sandbox-scope`` directories, which replace them; with neither (the client
names no ``file:`` root, cannot be asked, as over stateless HTTP, or does not
answer), the base directory (``MCIGEN_BASE_DIR``) else the current directory. An
MTDF call's working directory is taken against the first scope and refused
outside every scope; in strict mode, on unless ``--no-sandbox`` or
``AHMA_DISABLE_SANDBOX`` turns the sandbox off, the kernel lets the command write
only beneath the scopes (see :mod:`mcigen_runtime.landlock`).
"""

from __future__ import annotations

import os
import warnings
import weakref
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote, urlsplit

from ..landlock import LandlockUnavailable, abi_version
from ..path_policy import Sandbox, sandbox_scopes
from ..printable import printable

if TYPE_CHECKING:
    from mcp.server.session import ServerSession

    from ..registry import Registry

DISABLE_VARIABLE = "AHMA_DISABLE_SANDBOX"
"""Set to anything but ``""``, ``0`` or ``false``: the sandbox is off, as with
``--no-sandbox``."""

SCOPES_VARIABLE = "MCIGEN_SANDBOX_SCOPES"
"""Directories separated by ``os.pathsep``: the fixed scopes when no
``--sandbox-scope`` gives them (the only way to give them to the ASGI app)."""

ROOTS_TIMEOUT_S = 10.0
"""How long a client may take to answer ``roots/list``."""


class SandboxUnavailable(Exception):
    """Strict mode was asked for and the kernel cannot confine commands."""


def disabled_by(env: Mapping[str, str]) -> bool:
    """Whether ``AHMA_DISABLE_SANDBOX`` in ``env`` turns the sandbox off."""
    value = env.get(DISABLE_VARIABLE, "").strip().lower()
    return value not in ("", "0", "false", "no")


def confines_commands(registry: Registry) -> bool:
    """Whether the package runs commands a sandbox confines: an MTDF package's,
    or one built with ``--confine-cli``."""
    confined = registry.build.get("format") == "mtdf" or "--confine-cli" in (
        registry.build.get("flags") or ()
    )
    return confined and any(tool.type == "cli" for tool in registry.tools)


class SandboxPolicy:
    """Where a server's calls may work: the same for every session, or each
    session's client's roots."""

    def __init__(
        self, enabled: bool, fixed: tuple[str, ...] = (), asks_roots: bool = False
    ) -> None:
        self.enabled = enabled
        self.fixed = tuple(os.path.realpath(scope) for scope in fixed)
        self.asks_roots = asks_roots
        """Whether the scopes are worth a ``roots/list`` (an MTDF package's)."""
        self._roots: weakref.WeakKeyDictionary[Any, tuple[str, ...]] = (
            weakref.WeakKeyDictionary()
        )

    def describe(self, registry: Registry, asks_roots: bool) -> str:
        """What the server of ``registry`` says about its sandbox as it starts;
        ``asks_roots``: whether it can ask its clients for their roots (stateless
        HTTP cannot)."""
        if self.enabled and registry.build.get("format") != "mtdf":
            return (
                "sandbox: cli tools' commands may write only beneath the base "
                "directory and their directoryAllowList (Landlock, --confine-cli)"
            )
        if not self.enabled:
            return (
                "warning: sandbox disabled (--no-sandbox or AHMA_DISABLE_SANDBOX): "
                "working directories are not checked and commands may write anywhere"
            )
        if self.fixed:
            where = ", ".join(printable(scope) for scope in self.fixed)
            return f"sandbox: commands may write only beneath {where} (Landlock)"
        (fallback,) = sandbox_scopes()
        if fallback == os.sep:  # an MCP client may start its servers in /
            calls = "a call without the client's roots" if asks_roots else "every call"
            return (
                f"warning: sandbox: {calls} has the scope /, the base or current "
                "directory: its commands may write anywhere; give --sandbox-scope DIR"
            )
        default = f"{printable(fallback)}, the base or current directory"
        where = (
            f"the client's roots (else {default})"
            if asks_roots
            else f"{default} (stateless HTTP cannot ask for roots)"
        )
        return f"sandbox: commands may write only beneath {where} (Landlock)"

    async def for_call(self, session: ServerSession | None) -> Sandbox:
        """The sandbox of a call made in ``session`` (None: no session to ask)."""
        if self.enabled and not self.fixed:
            roots = await self._client_roots(session)
            if roots:
                return Sandbox(roots, confined=True)
        return self.without_client()

    def without_client(self) -> Sandbox:
        """The sandbox of a call no client's roots bear on."""
        if not self.enabled:
            return Sandbox(sandbox_scopes(), checked=False)
        return Sandbox(self.fixed or sandbox_scopes(), confined=True)

    def forget(self, session: ServerSession) -> None:
        """The client's roots changed: ask again at its next call."""
        self._roots.pop(session, None)

    async def _client_roots(self, session: ServerSession | None) -> tuple[str, ...]:
        if session is None or not self.asks_roots:
            return ()
        known = self._roots.get(session)
        if known is not None:
            return known
        import anyio
        import mcp_types as types

        if not session.check_client_capability(
            types.ClientCapabilities(roots=types.RootsCapability())
        ):
            return ()
        try:
            with warnings.catch_warnings():  # the SDK deprecates roots for 2026-07-28
                warnings.simplefilter("ignore")
                asked = session.list_roots()
            with anyio.fail_after(ROOTS_TIMEOUT_S):
                answer = await asked
        except Exception:  # no back channel, an error, no answer: the default
            return ()
        roots = tuple(
            os.path.realpath(unquote(parts.path))
            for parts in (urlsplit(str(root.uri)) for root in answer.roots)
            if parts.scheme == "file" and parts.path
        )
        self._roots[session] = roots
        return roots


def sandbox_policy(
    registry: Registry, no_sandbox: bool, scopes: list[str], env: Mapping[str, str]
) -> SandboxPolicy:
    """The server's sandbox, its fixed scopes ``scopes`` else those of
    ``MCIGEN_SANDBOX_SCOPES``; :class:`SandboxUnavailable` when it would be strict,
    the package runs commands and the kernel cannot confine them; :class:`ValueError`
    naming a scope that is not a directory."""
    named = "--sandbox-scope "
    if not scopes:
        named = f"{SCOPES_VARIABLE}: "
        listed = env.get(SCOPES_VARIABLE, "").split(os.pathsep)
        scopes = [scope for scope in listed if scope.strip()]
    for scope in scopes:
        if not os.path.isdir(scope):
            raise ValueError(f"{named}{scope}: not a directory")
    policy = SandboxPolicy(
        not (no_sandbox or disabled_by(env)),
        tuple(scopes),
        asks_roots=registry.build.get("format") == "mtdf",
    )
    if policy.enabled and confines_commands(registry):
        try:
            abi_version()
        except LandlockUnavailable as error:
            raise SandboxUnavailable(
                f"the sandbox cannot confine commands: {error}; serve with "
                f"--no-sandbox (or {DISABLE_VARIABLE}=1) to run them unconfined"
            ) from None
    return policy
