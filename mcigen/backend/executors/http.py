"""An http tool's view (``templates/executors/http.py.jinja``): its templated parts
compiled into the keywords of the runtime's ``http_call``
(``mcigen_runtime.executors.http``), auth and retries as its small typed values."""

from __future__ import annotations

from dataclasses import dataclass, field

from ... import ir
from ..pysource import Code, code, literal
from .view import (
    TEMPLATE_FAILURES,
    TEMPLATING,
    Build,
    ExecutorView,
    Parts,
    env_paths_of,
    env_values,
    executor_face,
    present,
)

_AUTH_TYPES = {
    "apiKey": "ApiKeyAuth",
    "bearer": "BearerAuth",
    "basic": "BasicAuth",
    "oauth2": "OAuth2Auth",
}
_AUTH_FIELDS = {
    "in": "location",
    "tokenUrl": "token_url",
    "clientId": "client_id",
    "clientSecret": "client_secret",
}
"""MCI's auth fields whose keyword in the runtime differs from their name."""


@dataclass
class HttpView(ExecutorView):
    arguments: list[Code] = field(default_factory=list)
    """The keyword arguments of ``http_call`` (``name=expression``)."""


def http_view(build: Build, execution: ir.HttpExecution) -> HttpView:
    view = HttpView(awaits=True, needs_context=True)
    parts = Parts(view, present(build.planned.tool))
    arguments = {
        "method": literal(execution.method),
        "url": parts.structure(execution.url.raw, "url"),
        "headers": parts.structure(execution.headers, "header", secret_env=True),
        "params": parts.structure(execution.params, "param", secret_env=True),
    }
    if execution.body_type:
        arguments["body_type"] = literal(execution.body_type)
        arguments["body"] = parts.structure(execution.body_content, "body")
    if execution.auth is not None:
        arguments["auth"] = _auth(view, parts, execution.auth)
    arguments["timeout_ms"] = literal(execution.timeout_ms)
    if execution.retry_attempts is not None:
        arguments["retry"] = code(
            f"_http.Retry(attempts={literal(execution.retry_attempts)}, "
            f"backoff_ms={literal(execution.retry_backoff_ms or 0)})"
        )
    url_env_paths = env_paths_of(execution.url.raw)
    if parts.env_paths:
        arguments["secrets"] = env_values(parts.env_paths)
    if url_env_paths:
        arguments["url_env"] = env_values(url_env_paths)
    if parts.env_paths or url_env_paths:
        view.imports.add((TEMPLATING, "value_or_none as _value_or_none"))
    arguments["limits"] = code("_LIMITS")
    view.arguments = [code(f"{name}={value}") for name, value in arguments.items()]
    view.imports.update(TEMPLATE_FAILURES)
    view.imports.add(executor_face("http"))
    return view


def _auth(view: HttpView, parts: Parts, auth: ir.HttpAuth) -> Code:
    """The auth value: each field compiled into a local named after it."""
    kind = _AUTH_TYPES[auth.kind]
    keywords = []
    for name, value in auth.fields.items():
        keyword = _AUTH_FIELDS.get(name, name)
        expression = parts.structure(value, keyword, secret_env=True)
        keywords.append(f"{keyword}={expression}")
    return code(f"_http.{kind}({', '.join(keywords)})")
