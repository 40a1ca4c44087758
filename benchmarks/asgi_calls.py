"""``tools/call greet`` through an HTTP app driven in process: each app's own work per
call, without uvicorn, h11 or sockets (the same for mcigen and the floor).

    python -m benchmarks.asgi_calls [--skip MIDDLEWARE,...] [--watch]
    python -m benchmarks.asgi_calls --profile [--skip ...]

Builds the serving rows' schema into a package (once, under ``.cache/bench/asgi``),
then counts with callgrind (:mod:`benchmarks.instructions`) the instructions a call
of mcigen's ASGI app (``PKG.server:app``, at the INFO log level, its lines written to
``/dev/null``) and of the floor's (``floor_server.py``), both in this interpreter:
:data:`CLIENTS` clients, each with its session (``initialize`` first), call ``greet``
at once, round after round; the count of a process making ``N`` rounds (``N`` in the
environment, 20 by default) minus that of one making none, per call.

The event loop's clock stands still, so no timer fires: a request that takes less
than the lifecycle middleware's 50 ms (every request of an idle server) is counted,
and the count does not move with the load. ``--watch`` counts mcigen's requests as
if each had run 50 ms (its client's leaving watched for). ``--skip`` leaves named
middlewares out of mcigen's app (``RequestLog``, ``CallLifecycleMiddleware``, ...):
what each costs. ``--profile`` prints cProfile's share of mcigen's time and the
floor's instead, by module.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import json
import os
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from benchmarks import schemas
from benchmarks.paths import PYTHON, ROOT

CLIENTS = 16
WORK = ROOT / ".cache" / "bench" / "asgi"
PACKAGE = "asgibench"
FLOOR_SERVER = Path(__file__).with_name("floor_server.py")
GREET = {"name": "greet", "arguments": {"name": "Ann"}}
INITIALIZE = {
    "protocolVersion": "2025-06-18",
    "capabilities": {},
    "clientInfo": {"name": "bench", "version": "1"},
}


def built() -> Path:
    """The serving schema's path, its package built beside it."""
    path = WORK / "bench.mci.json"
    if not (WORK / PACKAGE / "server.py").is_file():
        WORK.mkdir(parents=True, exist_ok=True)
        schemas.write(schemas.serve_schema("http://127.0.0.1:9"), path)
        subprocess.run(
            [
                str(PYTHON),
                "-m",
                "mcigen",
                "build",
                str(path),
                "-o",
                str(WORK / PACKAGE),
            ],
            check=True,
            capture_output=True,
        )
    return path


def mcigen_app(skip: Iterable[str] = ()) -> Any:
    """mcigen's ASGI app over the built package, without the middlewares ``skip``."""
    built()
    sys.path.insert(0, str(WORK))
    for name in [name for name in os.environ if name.startswith("MCIGEN_")]:
        del os.environ[name]
    sys.stderr = open(os.devnull, "w")  # the log's handler writes here
    app = importlib.import_module(f"{PACKAGE}.server").app
    left_out = set(skip)
    app.user_middleware = [
        kept for kept in app.user_middleware if kept.cls.__name__ not in left_out
    ]
    return app


def floor_app() -> Any:
    os.environ["FLOOR_SCHEMA"] = str(built())
    sys.path.insert(0, str(FLOOR_SERVER.parent))
    return importlib.import_module("floor_server").app


class _StillClock(asyncio.SelectorEventLoop):
    """An event loop whose clock stands still: no timer ever comes due."""

    def time(self) -> float:
        return 0.0


class Client:
    """One client with its session: an ASGI exchange per request, as uvicorn makes
    it (the body at once; ``http.disconnect`` once the answer is complete)."""

    def __init__(self, app: Any, port: int) -> None:
        self.app = app
        self.port = port
        self.ids = 0
        self.headers = [
            (b"host", b"127.0.0.1:8000"),
            (b"accept", b"application/json, text/event-stream"),
            (b"content-type", b"application/json"),
        ]

    async def request(self, method: str, params: dict[str, Any]) -> Any:
        self.ids += 1
        body = json.dumps(
            {"jsonrpc": "2.0", "id": self.ids, "method": method, "params": params}
        ).encode()
        scope = {
            "type": "http",
            "asgi": {"version": "3.0", "spec_version": "2.3"},
            "http_version": "1.1",
            "server": ("127.0.0.1", 8000),
            "client": ("127.0.0.1", self.port),
            "scheme": "http",
            "method": "POST",
            "root_path": "",
            "path": "/mcp",
            "raw_path": b"/mcp",
            "query_string": b"",
            "headers": [*self.headers, (b"content-length", str(len(body)).encode())],
            "state": {},
        }
        pending = [{"type": "http.request", "body": body, "more_body": False}]
        done = asyncio.Event()
        answer: dict[str, Any] = {"body": b""}

        async def receive() -> dict[str, Any]:
            if pending:
                return pending.pop()
            await done.wait()
            return {"type": "http.disconnect"}

        async def send(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                answer["status"] = message["status"]
                answer["headers"] = dict(message["headers"])
            else:
                answer["body"] += message.get("body", b"")
                if not message.get("more_body"):
                    done.set()

        await self.app(scope, receive, send)
        assert answer["status"] == 200, answer
        if method == "initialize":
            session = answer["headers"].get(b"mcp-session-id")
            if session:
                self.headers.append((b"mcp-session-id", session))
            self.headers.append((b"mcp-protocol-version", b"2025-06-18"))
        return json.loads(answer["body"])


class Driver:
    """``app`` served in process to :data:`CLIENTS` clients, its lifespan begun."""

    def __init__(self, app: Any) -> None:
        self.loop = _StillClock()
        self.app = app
        self.startup: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.loop.run_until_complete(self._start())
        self.clients = [Client(app, 40000 + index) for index in range(CLIENTS)]
        self._all(lambda client: client.request("initialize", INITIALIZE))
        [answer] = {
            json.dumps(result["result"]["content"])
            for result in self._all(lambda c: c.request("tools/call", GREET))
        }
        assert "Hello Ann" in answer, answer

    async def _start(self) -> None:
        incoming: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        await incoming.put({"type": "lifespan.startup"})

        async def send(message: dict[str, Any]) -> None:
            await self.startup.put(message)

        scope = {"type": "lifespan", "asgi": {"version": "3.0"}, "state": {}}
        self.lifespan = self.loop.create_task(self.app(scope, incoming.get, send))
        started = await self.startup.get()
        assert started["type"] == "lifespan.startup.complete", started

    def _all(self, request: Any) -> list[Any]:
        async def every() -> list[Any]:
            return list(await asyncio.gather(*map(request, self.clients)))

        return self.loop.run_until_complete(every())

    def round(self) -> None:
        """Each client calls ``greet`` once, all at once."""
        self._all(lambda client: client.request("tools/call", GREET))


def _setup(app: str) -> str:
    return f"from benchmarks import asgi_calls\nd = asgi_calls.Driver({app})\n"


def _profile(app: str, rounds: int) -> None:
    import cProfile
    import pstats

    driver = Driver(eval(app, {"asgi_calls": sys.modules[__name__]}))
    profile = cProfile.Profile()
    profile.runcall(lambda: [driver.round() for _ in range(rounds)])
    stats = pstats.Stats(profile)
    total = sum(entry[2] for entry in stats.stats.values())  # type: ignore[attr-defined]
    by_module: dict[str, float] = {}
    for (file, _, _), entry in stats.stats.items():  # type: ignore[attr-defined]
        by_module[_module(file)] = by_module.get(_module(file), 0.0) + entry[2]
    print(f"{app}: {total / rounds / CLIENTS * 1e6:,.0f} profiled µs a call")
    for module, seconds in sorted(by_module.items(), key=lambda kv: -kv[1])[:25]:
        print(f"  {seconds / total:6.1%}  {module}")
    stats.sort_stats("tottime").print_stats(40)


def _module(file: str) -> str:
    for marker in ("site-packages/", "runtime/", "lib/python3"):
        if marker in file:
            tail = file.split(marker, 1)[1]
            return (
                "/".join(tail.split("/")[:2])
                if marker != "lib/python3"
                else ("stdlib/" + tail.split("/")[1])
            )
    return file


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.asgi_calls")
    parser.add_argument("--skip", default="", help="middlewares left out, by name")
    parser.add_argument("--watch", action="store_true")
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--only", choices=("mcigen", "floor"))
    args = parser.parse_args(argv)
    skip = [name for name in args.skip.split(",") if name]
    ours = f"asgi_calls.mcigen_app({skip!r})"
    apps = {"mcigen": ours, "floor": "asgi_calls.floor_app()"}
    if args.only:
        apps = {args.only: apps[args.only]}
    if args.profile:
        for app in apps.values():
            _profile(app, 60)
        return
    from benchmarks.instructions import per_call

    built()
    rounds = int(os.environ.get("N", "20"))
    for name, app in apps.items():
        setup = _setup(app)
        if args.watch and name == "mcigen":
            setup = "from mcigen_runtime.edge import lifecycle\n"
            setup += "lifecycle.WATCH_AFTER_S = -1.0\n" + _setup(app)
        count = per_call(str(PYTHON), setup, "d.round()", rounds) / CLIENTS
        print(f"{count:12,.0f}  {name}{' ' + ','.join(skip) if skip else ''}")


if __name__ == "__main__":
    main(sys.argv[1:])
