"""Row 1: the time of one call, per tool kind, sync and async.

mcigen's sync figure calls the tool's dict-level entry point ``INVOKERS[name](props,
env)`` (what ``Client.execute`` and ``tools/call`` reach); the async figure awaits
``ASYNC_INVOKERS[name](props, env)`` where the tool has one (tools that do I/O) and the
public ``<tool>_async(**props)`` twin otherwise, every call in one running event loop.
mci-py (no async API) is ``MCIClient.execute`` on one client reused for every call, as
a long-running agent would; its figure is compared with both. The hand-written
baseline is the least Python that does the same work.

The templates see the same environment in all three: ``ENV``, a plain dict, as
mci-py's ``env_vars`` is (it never reads ``os.environ``). Only the async text rows
read ``os.environ``, because that is what the public twins read; their floor does too.
"""

from __future__ import annotations

import json
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks import schemas
from benchmarks.paths import PYTHON, TOY_SERVER
from benchmarks.report import Row
from benchmarks.timing import Budget, Timed, Worker, interleave

PACKAGE = "benchpkg"


@dataclass(frozen=True)
class Case:
    name: str
    kind: str
    """text, file, cli, http or mcp: the target the row is held to."""
    tool: str
    props: dict[str, Any]
    baseline: str | None = None
    """A hand-written expression doing the same work (``props``, ``os``,
    ``subprocess``, ``client`` (a pooled httpx.Client) and ``url`` are in scope)."""
    baseline_async: str | None = None
    """The same, awaited: ``_atext`` is an ``async def`` returning ``baseline``;
    ``_cli`` and ``_http`` are the helpers of ``_BASELINE_SETUP``."""
    baseline_name: str | None = None


ENV = {"BENCH_RUN": "1"}
"""What ``{{env.X}}`` reads: ``TEAM`` is not there, so ``greet`` falls back to 'us'."""

_TEXT = "f\"Hello {props['name']} from {props.get('team') or env.get('TEAM', 'us')}!\""
_LOOP = (
    "'Items:\\n' + ''.join(f'- {i}\\n' for i in props['items'])"
    " + ('many' if props['n'] > 2 else 'few')"
)

CASES = (
    Case(
        "text",
        "text",
        "greet",
        {"name": "Ann"},
        _TEXT,
        "_atext(props)",
        "f-string",
    ),
    Case(
        "text, loop + condition",
        "text",
        "listing",
        {"items": ["a", "b", "c"], "n": 3},
        _LOOP,
        "_atext(props)",
        "join + conditional",
    ),
    Case("file, 10 KB template (cached)", "file", "letter", schemas.LETTER_PROPS),
    Case(
        "cli (echo)",
        "cli",
        "echo",
        {"word": "hi"},
        "subprocess.run(['echo', props['word']], capture_output=True)",
        "_cli(['echo', props['word']])",
        "subprocess.run / create_subprocess_exec",
    ),
    Case(
        "http (loopback, keep-alive)",
        "http",
        "fetch",
        {},
        "client.get(url).text",
        "_http(url)",
        "pooled httpx.Client / AsyncClient .get",
    ),
    Case(
        "mcp (stdio, SDK server)",
        "mcp",
        "add",
        {"a": 2, "b": 3},
        baseline_name="raw mcp ClientSession.call_tool",
    ),
)

_BASELINE_SETUP = """
import asyncio, os, subprocess, httpx
client = httpx.Client()
aclient = httpx.AsyncClient()

async def _cli(argv):
    process = await asyncio.create_subprocess_exec(
        *argv, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
    )
    return await process.communicate()

async def _http(url):
    return (await aclient.get(url)).text
"""

_MCP_FLOOR = """
import asyncio, os, sys
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

session = None

async def _own(ready):
    global session
    params = StdioServerParameters(command=sys.executable, args=[{server!r}, "stdio"])
    with open(os.devnull, "w") as quiet:
        async with stdio_client(params, errlog=quiet) as (read, write):
            async with ClientSession(read, write) as own:
                await own.initialize()
                session = own
                ready.set()
                await asyncio.Event().wait()

async def _start():
    global _owner
    ready = asyncio.Event()
    _owner = asyncio.ensure_future(_own(ready))
    await ready.wait()

_runner().run(_start())
"""
"""The floor of an MCP call: a raw SDK session to the same server, owned by a task
that lives as long as the worker's event loop."""

_MCP_FLOOR_CALL = 'session.call_tool("add", {"a": 2, "b": 3})'


def _ours(work: Path, case: Case, manifest: dict[str, Any]) -> Worker:
    entry = next(t for t in manifest["tools"] if t["name"] == case.tool)
    module = f"{PACKAGE}.tools.{entry['group']}"
    setup = (
        f"import {module} as m\nprops = {case.props!r}\nenv = {ENV!r}\n"
        f"f = m.INVOKERS[{case.tool!r}]\n"
        f"af = getattr(m, 'ASYNC_INVOKERS', {{}}).get({case.tool!r})\n"
        f"twin = getattr(m, {entry['python_name'] + '_async'!r})\n"
    )
    return Worker(
        PYTHON,
        work,
        setup,
        {
            "sync": ("f(props, env)", False),
            "async": ("(af(props, env) if af else twin(**props))", True),
        },
    )


def _mci_py(work: Path, case: Case, mci_py: Path) -> Worker:
    setup = (
        "from mcipy import MCIClient\n"
        f"c = MCIClient(schema_file_path='bench.mci.json', env_vars={ENV!r})\n"
        f"props = {case.props!r}\n"
    )
    return Worker(
        mci_py, work, setup, {"sync": (f"c.execute({case.tool!r}, props)", False)}
    )


def _baseline(work: Path, case: Case, url: str) -> Worker | None:
    if case.kind == "mcp":
        setup = _MCP_FLOOR.format(server=str(TOY_SERVER))
        return Worker(PYTHON, work, setup, {"async": (_MCP_FLOOR_CALL, True)})
    if case.baseline is None or case.baseline_async is None:
        return None
    setup = _BASELINE_SETUP + f"props = {case.props!r}\nurl = {url!r}\nenv = {ENV!r}\n"
    if case.kind == "text":  # as the public twins, it reads os.environ
        setup += (
            f"async def _atext(props, env=os.environ):\n    return {case.baseline}\n"
        )
    return Worker(
        PYTHON,
        work,
        setup,
        {"sync": (case.baseline, False), "async": (case.baseline_async, True)},
    )


def _measure_case(
    work: Path,
    case: Case,
    manifest: dict[str, Any],
    url: str,
    mci_py: Path,
    budget: Budget,
) -> list[Row]:
    with ExitStack() as stack:
        ours = stack.enter_context(_ours(work, case, manifest))
        theirs = stack.enter_context(_mci_py(work, case, mci_py))
        floor = _baseline(work, case, url)
        timed = [Timed(ours, "sync"), Timed(ours, "async")]
        if case.kind == "mcp":
            # mci-py starts the MCP server on every call (~1 s): one call per run,
            # no warm-up, three runs
            timed.append(Timed(theirs, "sync", warmup=0, max_runs=3, run_seconds=0))
        else:
            timed.append(Timed(theirs, "sync"))
        floor_index: dict[str, int] = {}
        if floor is not None:
            stack.enter_context(floor)
            if case.kind == "mcp":  # the SDK is async only: one floor for both rows
                timed.append(Timed(floor, "async"))
                floor_index = {"sync": 3, "async": 3}
            else:
                timed += [Timed(floor, "sync"), Timed(floor, "async")]
                floor_index = {"sync": 3, "async": 4}
        figures = interleave(timed, budget)
    theirs_timing = figures[2]
    rows = []
    for index, mode in enumerate(("sync", "async")):
        ours_timing = figures[index]
        base = figures[floor_index[mode]].stats if floor_index else None
        rows.append(
            Row(
                "per call",
                f"{case.name}, {mode}",
                "us",
                ours_timing.stats,
                theirs_timing.stats,
                base,
                case.baseline_name,
                target=case.kind,
                extra={
                    "calls_per_run": ours_timing.number,
                    "first_call_us": ours_timing.first_us,
                    "mci_py_first_call_us": theirs_timing.first_us,
                    "mci_py_calls_per_run": theirs_timing.number,
                },
            )
        )
    return rows


def measure(
    work: Path, http_base: str, mci_py: Path, budget: Budget, log: Any
) -> list[Row]:
    """Per-call rows for the package ``benchpkg`` built in ``work`` from
    :func:`schemas.call_schema`."""
    manifest = json.loads((work / PACKAGE / "manifest.json").read_text("utf-8"))
    rows: list[Row] = []
    for case in CASES:
        log(f"per call: {case.name}")
        try:
            rows += _measure_case(
                work, case, manifest, http_base + "/text", mci_py, budget
            )
        except Exception as error:  # noqa: BLE001 - a failure is a row, not the end
            log(f"per call: {case.name}: FAILED: {str(error)[-2000:]}")
            lines = str(error).strip().splitlines() or [""]
            rows.append(
                Row(
                    "per call",
                    f"{case.name}: FAILED",
                    "us",
                    None,
                    target=case.kind,
                    note=f"{type(error).__name__}: {lines[-1]}"[:200],
                )
            )
    return rows
