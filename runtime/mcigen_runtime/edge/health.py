"""The health answers of every HTTP server of a package (``serve --http``, the ASGI
app under uvicorn, ``broker``), for probes (Kubernetes, a load balancer, a script):

- ``GET /healthz`` (liveness): ``200 {"status": "ok"}`` whenever the process
  answers requests at all.
- ``GET /readyz`` (readiness): ``200 {"status": "ready", "upstream": {...}}`` when
  every upstream MCP server the served tools call has started; ``503 {"status":
  "not_ready", "upstream": {...}}`` while one is still starting or after one failed
  to start. ``upstream`` gives each server's state by name: ``ready``,
  ``starting``, ``failed``, or ``left_out`` (the broker's
  ``--ignore-broken-tool`` left it and its tools out, which does not make the
  server unready: every tool it serves can be answered). Why a server failed is in
  the server's log, not in the answer.

HTTP servers start their upstream MCP servers as they start (in the background:
they listen at once), so readiness means what a probe expects, and the first call
does not pay for the start. A call to a failed server's tool tries to start it
again; readiness follows the last try.

Both paths answer ``GET`` and ``HEAD`` (``405`` otherwise), without the bearer
secret: a probe cannot be expected to hold it, and the answers hold nothing a
secret guards (states and the names the tool list already shows). The Host and
Origin guard still applies, as on every path: probes address the server by IP
address or by a name given with ``--allow-host``.
"""

from __future__ import annotations

import importlib
import logging
from collections.abc import Callable, Iterable, Mapping
from concurrent.futures import Future
from typing import TYPE_CHECKING, Any

from .answers import send_body, send_json

if TYPE_CHECKING:
    from starlette.types import ASGIApp, Message, Receive, Scope, Send

    from ..registry import Registry

logger = logging.getLogger(__name__)

LIVENESS_PATH = "/healthz"
READINESS_PATH = "/readyz"

READY, STARTING, FAILED, LEFT_OUT = "ready", "starting", "failed", "left_out"


class UpstreamServers:
    """The upstream MCP servers whose tools a server serves, and how their starts
    went."""

    def __init__(
        self,
        registry: Registry,
        names: Iterable[str],
        env: Mapping[str, str],
        left_out: Iterable[str] = (),
    ) -> None:
        self.registry = registry
        self.names = tuple(sorted(set(names)))
        self.env = env
        self.left_out = tuple(sorted(set(left_out)))
        self._unresolved: dict[str, str] = {}
        """Servers that cannot even be tried (a variable they need is not set)."""

    def start(self) -> None:
        """Start every server in the background, as its first call would."""
        if not self.names:
            return
        sessions = _sessions()
        params = []
        for name in self.names:
            try:
                params.append(self.registry.server_params(name, self.env))
            except Exception as error:
                self._unresolved[name] = str(error)
                logger.warning("MCP server '%s' cannot start: %s", name, error)
        for future in sessions.start_mcp_sessions(params):
            future.add_done_callback(_warn_if_failed)

    def states(self) -> dict[str, str]:
        """Each server's state by name (see the module docs)."""
        outcomes: dict[str, str | None] = (
            _sessions().start_outcomes() if self.names else {}
        )
        states = {name: LEFT_OUT for name in self.left_out}
        for name in self.names:
            if name in self._unresolved:
                states[name] = FAILED
            elif name not in outcomes:
                states[name] = STARTING
            else:
                states[name] = READY if outcomes[name] is None else FAILED
        return states


def _warn_if_failed(future: Future[Any]) -> None:
    if not future.cancelled() and future.exception() is not None:
        logger.warning("%s", future.exception())


def _sessions() -> Any:
    # imported by name: a vendored runtime carries it only when the package has
    # MCP tools, which is when it has upstream servers
    return importlib.import_module("..executors.mcp.calls", __package__)


def readiness(upstream: UpstreamServers | None) -> tuple[bool, dict[str, Any]]:
    """Whether the server is ready, and the body of ``/readyz``."""
    states = upstream.states() if upstream is not None else {}
    ready = all(state in (READY, LEFT_OUT) for state in states.values())
    return ready, {"status": "ready" if ready else "not_ready", "upstream": states}


class HealthEndpoints:
    """ASGI middleware answering :data:`LIVENESS_PATH` and :data:`READINESS_PATH`
    (see the module docs); it starts ``upstream`` at the app's lifespan startup."""

    def __init__(self, app: ASGIApp, upstream: UpstreamServers | None = None) -> None:
        self.app = app
        self.upstream = upstream
        self._answers: dict[str, Callable[[], tuple[int, dict[str, Any]]]] = {
            LIVENESS_PATH: lambda: (200, {"status": "ok"}),
            READINESS_PATH: self._readiness,
        }

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan" and self.upstream is not None:
            await self.app(scope, _starting(receive, self.upstream), send)
            return
        answer = self._answers.get(scope["path"]) if scope["type"] == "http" else None
        if answer is None:
            await self.app(scope, receive, send)
            return
        if scope["method"] not in ("GET", "HEAD"):
            await send_body(send, 405, b"", [(b"allow", b"GET, HEAD")])
            return
        status, body = answer()
        headers = [(b"cache-control", b"no-store")]
        if scope["method"] == "HEAD":
            await send_body(send, status, b"", headers)
        else:
            await send_json(send, status, body, headers)

    def _readiness(self) -> tuple[int, dict[str, Any]]:
        ready, body = readiness(self.upstream)
        return (200 if ready else 503), body


def _starting(receive: Receive, upstream: UpstreamServers) -> Receive:
    """``receive`` of a lifespan that starts ``upstream`` at startup."""

    async def receive_lifespan() -> Message:
        message = await receive()
        if message["type"] == "lifespan.startup":
            upstream.start()
        return message

    return receive_lifespan
