"""HTTP calls are bounded (issue 14, groups 1 and 4): ``timeout_ms`` holds the whole
call however slowly a server trickles, a body larger than the ``http_body`` limit
(per package, per call) is refused without being read whole, and what cannot be
sent or read (an invalid URL, a header beyond Latin-1, a JSON body with NaN, JSON
nested 200,000 deep) is an ``isError`` result, never a traceback. Against the real
servers of :mod:`.hostile_http`."""

from __future__ import annotations

import asyncio
import importlib
import json
import math
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from ..conftest import run_mcigen, schema_of, write_schema
from .conftest import Invoke
from .hostile_http import HostileServer
from .http_attacks import ENV, attack_tools

MIB = 1 << 20
TIMED_OUT = "HTTP request failed: ReadTimeout: the call took longer than its timeout"
TOO_LARGE = "The response body is larger than the http_body limit"


def test_a_trickled_body_ends_at_the_calls_timeout(invoke: Invoke) -> None:
    """15 bytes, one every 0.6 s: the whole body once came after 9 s of a 1 s call."""
    result = invoke("trickle", {"bytes": 15})
    assert (result.isError, result.text) == (True, f"{TIMED_OUT} of 1000 ms")


def test_trickled_headers_end_there_too(invoke: Invoke, attacks: ModuleType) -> None:
    assert invoke("trickleHeaders", {}).text == f"{TIMED_OUT} of 1000 ms"
    twins = importlib.import_module("httpattacks.tools.main").ASYNC_INVOKERS
    result = asyncio.run(twins["trickleHeaders"]({}, ENV))
    assert result.text == f"{TIMED_OUT} of 1000 ms"


def test_retries_stop_when_the_time_is_up(invoke: Invoke, here: HostileServer) -> None:
    """Six attempts 0.2, 0.4, 0.8, 1.6 and 3.2 s apart do not fit in 2 s."""
    before = sum(r["path"] == "/status/503" for r in here.received)
    result = invoke("unavailable", {})
    assert (result.isError, result.text) == (True, "Server error: 503")
    attempts = sum(r["path"] == "/status/503" for r in here.received) - before
    assert 1 <= attempts < 6


@pytest.mark.parametrize(
    ("tool", "props"),
    [
        ("big", {"bytes": 10 * MIB + 1, "chunked": 0}),  # refused by Content-Length
        ("big", {"bytes": 600 * MIB, "chunked": 1}),  # refused once 10 MiB came
        ("bomb", {"bytes": 100 * MIB}),  # 100 MiB of zeros in 100 KiB of gzip
    ],
)
def test_a_body_over_the_limit_is_refused(
    invoke: Invoke, tool: str, props: dict[str, int]
) -> None:
    result = invoke(tool, props)
    assert result.isError and result.text.startswith(TOO_LARGE), result.text[:200]
    assert "(10485760 bytes)" in result.text


def test_the_head_of_a_large_answer_is_not_refused(invoke: Invoke) -> None:
    result = invoke("headOfBig", {})
    assert (result.isError, result.text) == (False, "")


def test_the_limit_is_the_callers_to_change(
    invoke: Invoke, attacks: ModuleType
) -> None:
    client = importlib.import_module("httpattacks.client")
    body = {"bytes": MIB, "chunked": 0}
    assert len(invoke("big", body).text) == MIB
    with client.limited(http_body=MIB - 1):
        assert invoke("big", body).text.startswith(TOO_LARGE)
    narrow = client.Client(env_vars=ENV, limits={"http_body": 1000})
    assert narrow.execute("big", body).result.text.startswith(TOO_LARGE)


def test_and_the_packages(tmp_path: Path, here: HostileServer) -> None:
    schema = write_schema(tmp_path, schema_of(*attack_tools(here.base)))
    built = run_mcigen(
        "build", schema, "-o", tmp_path / "small", "--limit", "http_body=64KiB"
    )
    assert built.returncode == 0, built.stderr
    call = (
        "import json, small\n"
        "big = small.Client().execute('big', {'bytes': 65537, 'chunked': 1})\n"
        "fits = small.Client().execute('big', {'bytes': 65536, 'chunked': 1})\n"
        "print(json.dumps([big.result.text, len(fits.result.text)]))\n"
    )
    refused, fitting = json.loads(_printed(call, tmp_path))
    assert refused.startswith(f"{TOO_LARGE} (65536 bytes)"), refused
    assert fitting == 65536


def test_a_600_mib_body_costs_no_more_memory_than_the_limit(
    attacks: ModuleType,
) -> None:
    """Peak RSS of a process that calls for 600 MiB, measured (it was 2.1 GiB)."""
    directory = Path(attacks.__path__[0]).parent
    call = (  # VmHWM: ru_maxrss may be the forking parent's (Linux keeps it)
        "import re, httpattacks\n"
        "from httpattacks.tools.main import INVOKERS\n"
        "result = INVOKERS['big']({'bytes': 600 << 20, 'chunked': 1}, {})\n"
        "status = open('/proc/self/status').read()\n"
        "print(result.isError, re.search(r'VmHWM:\\s+(\\d+)', status)[1])\n"
    )
    refused, peak_kib = _printed(call, directory).split()
    assert refused == "True"
    assert int(peak_kib) < 200 * 1024


def _printed(program: str, directory: Path) -> str:
    """What ``python -c program`` prints in ``directory``, a process of its own."""
    ran = subprocess.run(
        [sys.executable, "-c", program], cwd=directory, capture_output=True, text=True
    )
    assert ran.returncode == 0, ran.stderr
    return ran.stdout


def test_what_cannot_be_sent_is_an_error_result(
    invoke: Invoke, here: HostileServer
) -> None:
    invalid = invoke("anyUrl", {"url": "http://[::1/x"})
    assert (invalid.isError, invalid.text) == (
        True,
        "HTTP request failed: InvalidURL: Invalid port: ':1'",
    )
    sent = len(here.received)
    snowman = invoke("header", {"v": "snow ☃"})
    assert (snowman.isError, snowman.text) == (
        True,
        "Header 'X-V' holds a character no header can carry (header values are "
        "Latin-1 text); the request was not sent",
    )
    for x in (math.nan, math.inf):
        refused = invoke("number", {"x": x})
        assert (refused.isError, refused.text) == (
            True,
            "The JSON body holds NaN or Infinity, which JSON cannot carry; the "
            "request was not sent",
        )
    assert len(here.received) == sent
    latin = json.loads(invoke("header", {"v": "café"}).text)
    assert latin["headers"]["X-V"] == "café"  # sent as Latin-1, as requests sends it


def test_json_nested_200000_deep_is_an_error_result(
    invoke: Invoke, attacks: ModuleType
) -> None:
    message = "The JSON response is nested too deep to read"
    deep = invoke("deep", {"depth": 200_000})
    assert (deep.isError, deep.text, deep.metadata["status_code"]) == (
        True,
        message,
        200,
    )
    meta = importlib.import_module("httpattacks.meta")
    answer = meta.meta_call("/deep", {"depth": 200_000})
    assert (answer["isError"], answer["content"][0]["text"]) == (True, message)
    shallow = invoke("deep", {"depth": 500})
    assert json.loads(shallow.text) == json.loads("[" * 500 + "1" + "]" * 500)
