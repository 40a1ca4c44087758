"""The http tools the attacks call, against :mod:`.hostile_http`'s servers: ``here``
on 127.0.0.1 and ``elsewhere``, another host, on 127.0.0.2."""

from __future__ import annotations

from typing import Any

from .hostile_http import RIGHT_SECRET

ENV = {
    "API_KEY": "api-key-secret",
    "CUSTOM": "custom-secret",
    "URL_SECRET": "url-secret-value",
    "CLIENT_SECRET": RIGHT_SECRET,
    "EMPTY": "",
}
SECRETS = ("api-key-secret", "custom-secret", "url-secret-value", RIGHT_SECRET)

_API_KEY = {
    "type": "apiKey",
    "in": "header",
    "name": "X-API-Key",
    "value": "{{env.API_KEY}}",
}


def _http(name: str, url: str, **execution: Any) -> dict[str, Any]:
    return {"name": name, "execution": {"type": "http", "url": url, **execution}}


def attack_tools(here: str) -> list[dict[str, Any]]:
    return [
        _http(
            "moved",
            here + "/redirect/{{props.code}}",
            params={"to": "{{props.to}}"},
            headers={"X-Custom": "Token {{env.CUSTOM}}", "X-Plain": "plain"},
            auth=_API_KEY,
        ),
        _http(
            "movedBearer",
            here + "/redirect/302",
            params={"to": "{{props.to}}"},
            auth={"type": "bearer", "token": "{{env.API_KEY}}"},
        ),
        _http(
            "oauth",
            here + "/echo",
            auth={
                "type": "oauth2",
                "flow": "clientCredentials",
                "tokenUrl": here + "/token",
                "clientId": "cid",
                "clientSecret": "{{env.CLIENT_SECRET}}",
            },
        ),
        _http(
            "failing",
            here + "/status/{{props.code}}?key={{env.URL_SECRET}}&page={{props.page}}",
        ),
        _http("endpoint", "{{env.ENDPOINT}}"),
        _http(
            "emptyKey",
            here + "/status/404",
            auth={
                "type": "apiKey",
                "in": "query",
                "name": "key",
                "value": "{{env.EMPTY}}",
            },
        ),
        _http(
            "echo",
            here + "/echo?key={{env.URL_SECRET}}",
            headers={"X-Custom": "{{env.CUSTOM}}"},
            auth={"type": "bearer", "token": "{{env.API_KEY}}"},
        ),
        _http(
            "trickle",
            here + "/trickle?bytes={{props.bytes}}&every=0.6",
            timeout_ms=1000,
        ),
        _http(
            "trickleHeaders",
            here + "/trickle_headers?bytes=15&every=0.6",
            timeout_ms=1000,
        ),
        _http(
            "unavailable",
            here + "/status/503",
            retries={"attempts": 6, "backoff_ms": 200},
            timeout_ms=2000,
        ),
        _http("big", here + "/big?bytes={{props.bytes}}&chunked={{props.chunked}}"),
        _http("bomb", here + "/bomb?bytes={{props.bytes}}"),
        _http("headOfBig", here + "/big", method="HEAD"),
        _http("deep", here + "/deep?depth={{props.depth}}"),
        _http("anyUrl", "{{props.url}}"),
        _http("header", here + "/echo", headers={"X-V": "{{props.v}}"}),
        {
            "name": "number",
            "inputSchema": {
                "type": "object",
                "properties": {"x": {"type": "number"}},
                "required": ["x"],
            },
            "execution": {
                "type": "http",
                "method": "POST",
                "url": here + "/echo",
                "body": {"type": "json", "content": {"x": "{!! props.x !!}"}},
            },
        },
    ]
