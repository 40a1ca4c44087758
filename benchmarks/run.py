"""Per-call benchmarks: generated tools against mci-py and a hand-written baseline, one run.

    make bench            (or: .venv/bin/python benchmarks/run.py [--quick])

Builds a package from a generated schema, then times the same calls through the
generated functions, through mci-py 1.2 (its own venv, one client reused, as a
long-running agent would) and through hand-written Python doing the same work.
Prints a table and writes benchmarks/results.json. Figures are medians of repeated
timeit runs (best-of would hide noise); the spread column is (max - min) / median.
"""

from __future__ import annotations

import argparse
import json
import platform
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.http_server import LoopbackServer  # noqa: E402
from tests.mcp_servers import TOY_SERVER  # noqa: E402
from tests.oracle import oracle_python  # noqa: E402

BLOCK = (
    "Dear {{props.name}},\n@if(props.vip)Thanks for being a VIP.@else Welcome.@endif\n"
    "@foreach(item in props.items)- {{item.name}}: {{item.qty}}\n@endforeach\n"
)

SCHEMA = {
    "schemaVersion": "1.0",
    "tools": [
        {
            "name": "greet",
            "inputSchema": {
                "type": "object",
                "properties": {"name": {"type": "string"}, "team": {"type": "string"}},
                "required": ["name"],
            },
            "execution": {
                "type": "text",
                "text": "Hello {{props.name}} from {{props.team | env.TEAM | 'us'}}!",
            },
        },
        {
            "name": "listing",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "items": {"type": "array", "items": {"type": "string"}},
                    "n": {"type": "integer"},
                },
                "required": ["items", "n"],
            },
            "execution": {
                "type": "text",
                "text": "Items:\n@foreach(item in props.items)- {{item}}\n@endforeach@if(props.n > 2)many@else few@endif",
            },
        },
        {"name": "letter", "execution": {"type": "file", "path": "./letter.txt"}},
        {
            "name": "echo",
            "execution": {"type": "cli", "command": "echo", "args": ["{{props.word}}"]},
        },
    ],
}

ROWS = {
    "text call": ("greet", {"name": "Ann"}),
    "text call, loop + condition": ("listing", {"items": ["a", "b", "c"], "n": 3}),
    "file call, 10 KB template (cached)": (
        "letter",
        {
            "name": "Ann",
            "vip": True,
            "items": [{"name": "pen", "qty": 2}, {"name": "ink", "qty": 1}],
        },
    ),
    "cli call (echo)": ("echo", {"word": "hi"}),
    "http call (loopback, keep-alive)": ("fetch", {}),
    "mcp call (stdio, SDK server)": ("add", {"a": 2, "b": 3}),
}

SCALE = {"cli": (10, 10), "mcp": (10, 1000)}
"""Row prefix -> how many times fewer calls (mcigen, mci-py) than a text row makes:
a subprocess or an MCP round trip costs milliseconds, mci-py's MCP call a second."""

BASELINES = {
    "http call (loopback, keep-alive)": "client.get(props['url'])",
    "cli call (echo)": "subprocess.run(['echo', props['word']], capture_output=True)",
    "text call": "f\"Hello {props['name']} from {props.get('team') or os.environ.get('TEAM', 'us')}!\"",
    "text call, loop + condition": (
        "'Items:\\n' + ''.join(f'- {i}\\n' for i in props['items']) + ('many' if props['n'] > 2 else 'few')"
    ),
}

TIMER = textwrap.dedent("""
    import json, os, statistics, sys, timeit
    setup, call, number, repeat = json.loads(sys.argv[1])
    namespace = {}
    exec(setup, namespace)
    runs = timeit.repeat(call, globals=namespace, number=number, repeat=repeat)
    per_call = [r / number * 1e6 for r in runs]
    print(json.dumps([statistics.median(per_call), min(per_call), max(per_call)]))
    """)


MCP_FLOOR = textwrap.dedent("""
    import asyncio, json, os, statistics, sys, time
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client
    server, number, repeat = json.loads(sys.argv[1])

    async def main():
        params = StdioServerParameters(command=sys.executable, args=[server, "stdio"])
        with open(os.devnull, "w") as quiet:
            async with stdio_client(params, errlog=quiet) as (read, write):
                async with ClientSession(read, write) as session:
                    await session.initialize()
                    await session.call_tool("add", {"a": 2, "b": 3})
                    runs = []
                    for _ in range(repeat):
                        start = time.perf_counter()
                        for _ in range(number):
                            await session.call_tool("add", {"a": 2, "b": 3})
                        runs.append((time.perf_counter() - start) / number * 1e6)
        print(json.dumps([statistics.median(runs), min(runs), max(runs)]))

    asyncio.run(main())
    """)
"""The floor of an MCP call: a raw SDK session calling the same server."""


def _time(
    python: Path, cwd: Path, setup: str, call: str, number: int, repeat: int
) -> list[float]:
    done = subprocess.run(
        [str(python), "-c", TIMER, json.dumps([setup, call, number, repeat])],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=True,
    )
    figures: list[float] = json.loads(done.stdout)
    return figures


def _floor(number: int, repeat: int) -> list[float]:
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            MCP_FLOOR,
            json.dumps([str(TOY_SERVER), number, repeat]),
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    figures: list[float] = json.loads(done.stdout)
    return figures


def _figure(microseconds: float) -> str:
    """A time in a 13-character column: µs below 10 ms, ms above."""
    if microseconds < 10_000:
        return f"{microseconds:10.2f} us"
    return f"{microseconds / 1000:10.1f} ms"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="fewer repetitions")
    args = parser.parse_args()
    number, repeat = (200, 5) if args.quick else (2000, 9)
    work = Path(tempfile.mkdtemp(prefix="mcigen-bench-"))
    letter = ""
    while len(letter) < 10_000:
        letter += BLOCK + "lorem ipsum dolor sit amet " * 6 + "\n"
    (work / "letter.txt").write_text(letter, "utf-8")
    server = LoopbackServer()
    schema = json.loads(json.dumps(SCHEMA))
    schema["tools"].append(
        {"name": "fetch", "execution": {"type": "http", "url": server.base + "/text"}}
    )
    schema["mcp_servers"] = {
        "toy": {
            "command": sys.executable,
            "args": [str(TOY_SERVER), "stdio"],
            "config": {"filter": "only", "filterValue": "add"},
        }
    }
    (work / "bench.mci.json").write_text(json.dumps(schema), "utf-8")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "mcigen",
            "build",
            str(work / "bench.mci.json"),
            "-o",
            str(work / "benchpkg"),
        ],
        check=True,
    )
    mci_py = oracle_python()
    results = []
    groups = {
        t["name"]: t["group"]
        for t in json.loads((work / "benchpkg" / "manifest.json").read_text())["tools"]
    }
    for label, (tool, props) in ROWS.items():
        ours_scale, theirs_scale = SCALE.get(label.split()[0], (1, 10))
        ours = _time(
            Path(sys.executable),
            work,
            f"from benchpkg.tools.{groups[tool]} import INVOKERS; import os; "
            f"f = INVOKERS[{tool!r}]; props = {props!r}",
            "f(props, os.environ)",
            max(number // ours_scale, 2),
            repeat,
        )
        theirs = _time(
            mci_py,
            work,
            f"from mcipy import MCIClient; c = MCIClient(schema_file_path='bench.mci.json'); props = {props!r}",
            f"c.execute({tool!r}, props)",
            max(number // theirs_scale, 2),
            repeat if theirs_scale < 1000 else 3,
        )
        baseline = None
        if label.startswith("mcp"):
            baseline = _floor(max(number // ours_scale, 2), repeat)
        elif label in BASELINES:
            baseline = _time(
                Path(sys.executable),
                work,
                "import os, subprocess, httpx; client = httpx.Client(); "
                f"props = {{**{props!r}, 'url': {server.base + '/text'!r}}}",
                BASELINES[label],
                number // 10 if label.startswith("cli") else number,
                repeat,
            )
        results.append(
            {
                "row": label,
                "mcigen_us": ours[0],
                "mcigen_spread": (ours[2] - ours[1]) / ours[0],
                "mci_py_us": theirs[0],
                "speedup_vs_mci_py": theirs[0] / ours[0],
                "baseline_us": baseline[0] if baseline else None,
                "vs_baseline": ours[0] / baseline[0] if baseline else None,
            }
        )
    server.stop()
    machine = f"{platform.machine()}, {platform.python_implementation()} {platform.python_version()}"
    print(f"machine: {machine}; medians of {repeat} runs")
    print(
        f"{'row':38} {'mcigen':>13} {'mci-py':>13} {'speedup':>8} {'hand-written':>13} {'x baseline':>10}"
    )
    for r in results:
        base = _figure(r["baseline_us"]) if r["baseline_us"] else f"{'-':>13}"
        ratio = f"{r['vs_baseline']:9.1f}x" if r["vs_baseline"] else f"{'-':>10}"
        print(
            f"{r['row']:38} {_figure(r['mcigen_us'])} {_figure(r['mci_py_us'])} "
            f"{r['speedup_vs_mci_py']:7.1f}x {base} {ratio}"
        )
    (ROOT / "benchmarks" / "results.json").write_text(
        json.dumps({"machine": machine, "rows": results}, indent=2) + "\n", "utf-8"
    )


if __name__ == "__main__":
    main()
