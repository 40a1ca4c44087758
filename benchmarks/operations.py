"""Background operations served over HTTP: throughput and ``status`` latency under
uvicorn with one and two workers, operations in process or shared through Redis.

    .venv/bin/python benchmarks/operations.py      (needs redis-server; ~1 minute)

Builds a package with one background tool (``quick``: ``echo quick``), serves it
with ``MCIGEN_BACKGROUND_AFTER=0`` (every call answers an operation id unless the
command has already ended), and for each setup prints one JSON line: how many
operations 8 clients started and awaited per second, and the median and 95th
percentile of 200 ``status {id}`` calls. Two workers in process refuse background
calls (they share no operations): that row times the refusals and ``status``.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.mcp_servers import free_port, wait_until_listening  # noqa: E402

OPERATIONS, CLIENTS, STATUS_CALLS = 304, 8, 200
QUICK = {
    "name": "quick",
    "description": "Print quick",
    "command": "echo quick",
    "synchronous": False,
    "subcommand": [{"name": "default", "description": "quick itself"}],
}


def call(client: httpx.Client, url: str, session: str, tool: str, **args: Any) -> str:
    """The first text of ``tool``'s answer, called as ``session``."""
    request = {"name": tool, "arguments": args}
    answer = client.post(
        url,
        json={"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": request},
        headers={"Accept": "application/json", "Mcp-Session-Id": session},
        timeout=60,
    )
    return str(answer.json()["result"]["content"][0]["text"])


def measure(directory: Path, workers: int, redis_url: str | None) -> dict[str, Any]:
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("MCIGEN_")}
    env.update(PYTHONPATH=str(directory), MCIGEN_BACKGROUND_AFTER="0")
    if redis_url:
        env["MCIGEN_OPERATIONS_URL"] = redis_url
    argv = [sys.executable, "-m", "uvicorn", "pkg.server:app", "--workers"]
    argv += [str(workers), "--port", str(port), "--log-level", "warning"]
    # a file, not a pipe: the server logs a line per request, and a pipe nobody
    # reads fills and stops it
    log = tempfile.TemporaryFile()
    server = subprocess.Popen(
        argv, cwd=directory, env=env, stderr=log, start_new_session=True
    )
    try:
        try:
            wait_until_listening(server, port)
        except RuntimeError:
            log.seek(0)
            sys.stderr.write(log.read()[-2000:].decode(errors="replace"))
            raise
        url = f"http://127.0.0.1:{port}/mcp"
        session = f"bench {workers} {redis_url}"
        with httpx.Client() as client:  # every worker warm
            for _ in range(20):
                call(client, url, f"{session} warm", "quick")

        def start(n: int) -> list[str]:
            with httpx.Client() as client:
                mine = f"{session} {n}"
                answers = [
                    call(client, url, mine, "quick")
                    for _ in range(OPERATIONS // CLIENTS)
                ]
                call(client, url, mine, "await")
                return answers

        began = time.perf_counter()
        with ThreadPoolExecutor(CLIENTS) as pool:
            answers = [a for some in pool.map(start, range(CLIENTS)) for a in some]
        took = time.perf_counter() - began
        ids = [a.split()[2] for a in answers if a.startswith("AHMA ID: ")]
        latencies = []
        with httpx.Client() as client:
            for n in range(STATUS_CALLS):
                op_id = ids[n % len(ids)] if ids else "op_unknown"
                began = time.perf_counter()
                call(client, url, f"{session} 0", "status", id=op_id)
                latencies.append(time.perf_counter() - began)
        latencies.sort()
        return {
            "workers": workers,
            "operations": "redis" if redis_url else "in process",
            "calls": len(answers),
            "in the background": len(ids),
            "per second": round(len(answers) / took, 1),
            "status p50 ms": round(latencies[len(latencies) // 2] * 1000, 2),
            "status p95 ms": round(latencies[len(latencies) * 95 // 100] * 1000, 2),
        }
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait()
        log.close()


def main() -> None:
    program = shutil.which("redis-server")
    if program is None:
        sys.exit("redis-server is not installed (apt-get install redis-server)")
    with tempfile.TemporaryDirectory() as work:
        directory = Path(work)
        (directory / "tools").mkdir()
        (directory / "tools" / "quick.json").write_text(json.dumps(QUICK))
        build = [sys.executable, "-m", "mcigen", "build", "tools", "-o", "pkg"]
        subprocess.run(build, cwd=directory, check=True, capture_output=True)
        redis_port = free_port()
        redis = subprocess.Popen(
            [program, "--port", str(redis_port), "--save", ""],
            stdout=subprocess.DEVNULL,
        )
        try:
            wait_until_listening(redis, redis_port)
            url = f"redis://127.0.0.1:{redis_port}/0"
            for workers, shared in ((1, None), (2, None), (1, url), (2, url)):
                print(json.dumps(measure(directory, workers, shared)), flush=True)
        finally:
            redis.kill()
            redis.wait()


if __name__ == "__main__":
    main()
