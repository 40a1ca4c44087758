"""The broker over pyMCPBroker's plain HTTP API: ``POST /meta_tree``, ``/meta_desc``
and ``/meta_call`` with JSON bodies ``{"path": ...}`` and ``{"path": ..., "args":
{...}}``, answering what :class:`~.broker.Broker`'s ``tree``, ``desc`` and
``call_async`` return (the MCP meta-tools' answers), as JSON with status 200.

Every other answer is a JSON error ``{"error", "error_description"}`` (plus
``path`` when a path is concerned, and ``field`` and ``problems`` for invalid
args), one status per case (:data:`ERRORS`). A tool that runs and fails is not
an error of the request: its answer is 200 with ``"isError": true``.

Each ``meta_call`` is logged as a tool call named by its path, in its request's
line (``edge.logs``). In front of the endpoints, outermost first: one log line per
request (INFO), the
Host/Origin guard of ``serve --http`` (``http_origin``), ``/healthz`` and
``/readyz`` (``edge.health``, before the secret is asked for), the bearer secret
(``http_secret``: 401 with ``WWW-Authenticate: Bearer``), and the call lifecycle
(``http_lifecycle``: a call whose client disconnects is cancelled, commands still
running at shutdown are stopped). A call is bounded in time by its tool's own
bounds, as over MCP; bodies by :data:`MAX_BODY_BYTES`; header time and open
connections by ``edge.connections`` (``broker`` serves with its protocol). A string
holding a lone surrogate is ``invalid_json``.
"""

from __future__ import annotations

import functools
import json
import logging
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..edge.body import ClientGone, read_body
from ..edge.json_text import json_bytes, lone_surrogate, may_hold_surrogate
from ..edge.logs import logged_call
from .meta_tools import Broker, BrokerError, answer_is_error

if TYPE_CHECKING:
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import Response
    from starlette.types import Scope

    from ..edge.health import UpstreamServers
    from ..edge.origin_policy import HostOriginPolicy

logger = logging.getLogger(__name__)

ENDPOINTS = ("meta_tree", "meta_desc", "meta_call")
MAX_BODY_BYTES = 1 << 20
"""The largest request body read (1 MiB): a path and a tool's arguments."""

ERRORS: dict[str, tuple[int, str]] = {
    "invalid_json": (400, "the body is not JSON, or holds a lone surrogate"),
    "invalid_request": (
        400,
        "the body is not an object, or a field of it has the wrong type or name",
    ),
    "unauthorized": (401, "no or a wrong 'Authorization: Bearer SECRET'"),
    "unknown_path": (404, "no node or tool at the path"),
    "unknown_endpoint": (404, "no such endpoint"),
    "method_not_allowed": (405, "not POST"),
    "not_a_node": (409, "meta_tree of a tool"),
    "not_a_tool": (409, "meta_call of a node"),
    "body_too_large": (413, f"a body over {MAX_BODY_BYTES} bytes"),
    "invalid_args": (422, "args that do not match the tool's schema"),
    "internal_error": (500, "the tool raised (the server's log says why)"),
}
"""Each error of the API: its status and the case it stands for."""

_FIELDS = {"meta_tree": {"path"}, "meta_desc": {"path"}, "meta_call": {"path", "args"}}


class ApiError(Exception):
    """An answer other than 200: one of :data:`ERRORS`, with its details."""

    def __init__(self, error: str, description: str, **details: Any) -> None:
        super().__init__(description)
        self.error = error
        self.body: dict[str, Any] = {
            "error": error,
            "error_description": description,
            **details,
        }

    @property
    def status(self) -> int:
        return ERRORS[self.error][0]


class BrokerApi:
    """The three endpoints over ``broker``."""

    def __init__(self, broker: Broker, log_arguments: bool = False) -> None:
        self.broker = broker
        self.log_arguments = log_arguments

    async def answer(
        self, endpoint: str, body: bytes, scope: Scope | None = None
    ) -> dict[str, Any]:
        """The answer to ``POST /<endpoint>`` with ``body`` in the request
        ``scope``; raises :class:`ApiError`. A ``meta_call`` is logged in the
        request's line (see ``edge.logs``)."""
        if endpoint not in ENDPOINTS:
            raise ApiError(
                "unknown_endpoint",
                f"no endpoint '/{endpoint}': POST /meta_tree, /meta_desc or /meta_call",
            )
        request = _request(endpoint, body)
        path = request.get("path", "/")
        try:
            if endpoint == "meta_tree":
                return self.broker.tree(path)
            if endpoint == "meta_desc":
                return self.broker.desc(path)
        except BrokerError as error:
            raise self._refusal(error) from None
        args = request.get("args") or {}
        with logged_call(path, scope, args, self.log_arguments) as outcome:
            try:
                answer = await self.broker.call_async(path, args)
            except BrokerError as error:
                outcome.refused()
                raise self._refusal(error) from None
            outcome.answered(answer_is_error(answer))
            return answer

    def _refusal(self, error: BrokerError) -> ApiError:
        details: dict[str, Any] = {"path": error.path}
        if error.problems:
            details["field"] = error.field
            details["problems"] = [
                {"field": name, "message": message} for name, message in error.problems
            ]
        return ApiError(error.reason, str(error), **details)


def _request(endpoint: str, body: bytes) -> dict[str, Any]:
    """The body as the endpoint's fields, checked (an empty body is ``{}``)."""
    try:
        request = json.loads(body) if body.strip() else {}
    except (ValueError, RecursionError):
        raise ApiError("invalid_json", "the body is not valid JSON") from None
    if not isinstance(request, dict):
        raise ApiError(
            "invalid_request",
            f"the body must be a JSON object, not {_kind_of(request)}",
        )
    surrogate = lone_surrogate(request) if may_hold_surrogate(body) else None
    if surrogate is not None:
        raise ApiError(
            "invalid_json",
            f"the body holds a lone surrogate ({surrogate}), which is not Unicode text",
        )
    unknown = sorted(set(request) - _FIELDS[endpoint])
    if unknown:
        allowed = " and ".join(f"'{name}'" for name in sorted(_FIELDS[endpoint]))
        raise ApiError(
            "invalid_request",
            f"/{endpoint} takes {allowed}, not '{unknown[0]}'",
            field=unknown[0],
        )
    if "path" not in request and endpoint != "meta_tree":
        raise ApiError("invalid_request", f"/{endpoint} needs a 'path'", field="path")
    if "path" in request and not isinstance(request["path"], str):
        raise ApiError(
            "invalid_request",
            f"'path' must be a string such as '/', not {_kind_of(request['path'])}",
            field="path",
        )
    args = request.get("args")
    if args is not None and not isinstance(args, dict):
        raise ApiError(
            "invalid_request",
            f"'args' must be an object, not {_kind_of(args)}",
            field="args",
            path=request["path"],
        )
    return request


def _kind_of(value: object) -> str:
    """What a JSON value is, as messages name it."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    return "an array" if isinstance(value, list) else "an object"


def broker_app(
    broker: Broker,
    policy: HostOriginPolicy,
    secret: str | None,
    upstream: UpstreamServers | None = None,
    log_arguments: bool = False,
) -> Starlette:
    """The ASGI app of the API over ``broker`` (see the module docs)."""
    from starlette.applications import Starlette
    from starlette.exceptions import HTTPException
    from starlette.routing import Route

    from ..edge.bearer import BearerSecretMiddleware
    from ..edge.health import HealthEndpoints
    from ..edge.lifecycle import CallLifecycleMiddleware
    from ..edge.logs import RequestLog
    from ..edge.origin_guard import HostOriginGuard

    api = BrokerApi(broker, log_arguments)

    async def endpoint(request: Request) -> Response:
        headers = [(key, bytes(value)) for key, value in request.headers.raw]
        try:
            body = await read_body(headers, request.receive, MAX_BODY_BYTES)
            if body is None:
                raise ApiError(
                    "body_too_large", f"the body is over {MAX_BODY_BYTES} bytes"
                )
            answer = await api.answer(
                request.path_params["endpoint"], body, request.scope
            )
        except ClientGone:
            return _json(499, {})  # nobody reads it
        except ApiError as error:
            return _json(error.status, error.body)
        except Exception as error:
            logger.exception("%s raised", request.url.path)
            failure = ApiError(
                "internal_error",
                f"the call failed unexpectedly ({type(error).__name__}); "
                "see the server's log",
            )
            return _json(failure.status, failure.body)
        return _json(200, answer)

    async def refused(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        if exc.status_code == 405:
            error = ApiError(
                "method_not_allowed", f"{request.method} is not allowed: use POST"
            )
            return _json(405, error.body, {"allow": "POST"})
        error = ApiError(
            "unknown_endpoint",
            f"no endpoint '{request.url.path}': POST /meta_tree, /meta_desc or "
            "/meta_call",
        )
        return _json(404, error.body)

    app = Starlette(
        routes=[Route("/{endpoint}", endpoint, methods=["POST"])],
        exception_handlers={404: refused, 405: refused},
    )
    # Starlette runs the middleware added last first.
    app.add_middleware(CallLifecycleMiddleware)
    if secret:
        app.add_middleware(BearerSecretMiddleware, secret=secret)
    app.add_middleware(HealthEndpoints, upstream=upstream)
    app.add_middleware(HostOriginGuard, policy=policy)
    app.add_middleware(RequestLog)
    return app


def _json(status: int, body: Any, headers: Mapping[str, str] | None = None) -> Response:
    response = _response_class()
    return response(json_bytes(body), status, headers, media_type="application/json")


@functools.cache
def _response_class() -> type[Response]:
    """starlette's ``Response``, imported once (an import statement costs
    microseconds every request)."""
    from starlette.responses import Response

    return Response
