"""COMPATIBILITY.md rows 59-63: the attacks on http tools, through mci-py 1.2 and
through the package, both answers shown side by side (one oracle run)."""

from __future__ import annotations

import json
import math
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from ..oracle import run_oracle
from .conftest import Invoke
from .hostile_http import HostileServer
from .http_attacks import ENV

MIB = 1 << 20


def _calls(elsewhere: HostileServer) -> dict[str, tuple[str, dict[str, Any]]]:
    return {
        "row59": ("moved", {"code": 302, "to": elsewhere.base + "/echo"}),
        "row60": ("trickle", {"bytes": 4}),
        "row61": ("big", {"bytes": 10 * MIB + 1, "chunked": 0}),
        "row62": ("failing", {"code": 500, "page": "2"}),
        "row63 url": ("anyUrl", {"url": "http://[::1/x"}),
        "row63 header": ("header", {"v": "snow ☃"}),
        "row63 nan": ("number", {"x": math.nan}),
        "row63 deep": ("deep", {"depth": 200_000}),
    }


@pytest.fixture(scope="module")
def both(
    attacks: ModuleType, invoke: Invoke, elsewhere: HostileServer
) -> dict[str, tuple[Any, Any]]:
    """Each row's (mci-py's result, ours)."""
    calls = _calls(elsewhere)
    schema = Path(attacks.__path__[0]).parent / "attacks.mci.json"
    asked = [
        {"tool": tool, "props": props, "env": ENV} for tool, props in calls.values()
    ]
    theirs = [answer["result"] for answer in run_oracle(schema, asked)]
    ours = [invoke(tool, props) for tool, props in calls.values()]
    return dict(zip(calls, zip(theirs, ours, strict=True), strict=True))


def test_row59_secret_headers_stay_on_their_origin(
    both: dict[str, tuple[Any, Any]],
) -> None:
    theirs, ours = both["row59"]
    their_headers = json.loads(theirs["content"][0]["text"])["headers"]
    our_headers = json.loads(ours.text)["headers"]
    assert their_headers["X-API-Key"] == "api-key-secret"
    assert their_headers["X-Custom"] == "Token custom-secret"
    assert "X-API-Key" not in our_headers and "X-Custom" not in our_headers


def test_row60_timeout_ms_holds_the_whole_call(
    both: dict[str, tuple[Any, Any]],
) -> None:
    theirs, ours = both["row60"]
    assert (theirs["isError"], theirs["content"][0]["text"]) == (False, "xxxx")
    assert theirs["metadata"]["response_time_ms"] > 1000
    assert ours.text == (
        "HTTP request failed: ReadTimeout: the call took longer than its timeout "
        "of 1000 ms"
    )


def test_row61_a_body_over_the_limit_is_refused(
    both: dict[str, tuple[Any, Any]],
) -> None:
    theirs, ours = both["row61"]
    assert len(theirs["content"][0]["text"]) == 10 * MIB + 1
    assert ours.isError and "http_body limit (10485760 bytes)" in ours.text


def test_row62_an_env_value_in_the_url_query_is_redacted(
    both: dict[str, tuple[Any, Any]], here: HostileServer
) -> None:
    theirs, ours = both["row62"]
    url = f"{here.base}/status/500?key=%s&page=2"
    message = "500 Server Error: Internal Server Error for url: "
    assert theirs["content"][0]["text"] == message + url % "url-secret-value"
    assert ours.text == message + url % "***"


def test_row63_what_cannot_be_sent_or_read_in_our_words(
    both: dict[str, tuple[Any, Any]],
) -> None:
    shown = {
        row: (theirs["isError"], theirs["content"][0]["text"], ours.isError, ours.text)
        for row, (theirs, ours) in both.items()
        if row.startswith("row63")
    }
    assert shown == {
        "row63 url": (
            True,
            "Failed to parse: '[::1' is not a valid host or port",
            True,
            "HTTP request failed: InvalidURL: Invalid port: ':1'",
        ),
        "row63 header": (
            True,
            "'latin-1' codec can't encode character '\\u2603' in position 5: "
            "ordinal not in range(256)",
            True,
            "Header 'X-V' holds a character no header can carry (header values are "
            "Latin-1 text); the request was not sent",
        ),
        "row63 nan": (
            True,
            "Out of range float values are not JSON compliant",
            True,
            "The JSON body holds NaN or Infinity, which JSON cannot carry; the "
            "request was not sent",
        ),
        "row63 deep": (
            True,
            "maximum recursion depth exceeded while decoding a JSON array from a "
            "unicode string",
            True,
            "The JSON response is nested too deep to read",
        ),
    }
