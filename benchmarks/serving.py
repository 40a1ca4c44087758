"""Row 7: serving (issue 33). mcigen's ``serve`` against mcix (mci-py's CLI, ``mcix
run``: stdio only) and a hand-written server on the same SDK (``floor_server.py``),
in the same run, through raw JSON-RPC clients (``rpc.py``) so that only the servers
differ: start-up to an answered ``initialize``, ``tools/list``, ``tools/call``
latency (median and p99) over stdio and HTTP, HTTP throughput under uvicorn with one
and two workers, the broker's ``meta_call`` against the direct call, an MTDF tool
call against ``subprocess.run``, and the peak memory of a 1000-tool server.

mcix and the floor come from venvs of their own (``venvs.py``); a row whose venv
could not be made says so. mcix has no HTTP.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import signal
import statistics
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from benchmarks import rpc, schemas, venvs
from benchmarks.paths import PYTHON, ROOT
from benchmarks.report import Row
from benchmarks.timing import (
    Budget,
    Stats,
    Timed,
    Worker,
    interleave,
    task_cpu_ns,
    tree_cpu_ns,
)
from tests.mcp_servers import free_port, wait_until_listening

SECTION = "serving"
PACKAGE = "servepkg"
FLOOR_SERVER = ROOT / "benchmarks" / "floor_server.py"
BUILD_CACHE = venvs.CACHE / "builds"
"""mcigen's build cache for the serving packages: a second run rebuilds in seconds."""

LIST_SIZES = (10, 100, 1000)
"""The tool counts of the ``tools/list`` rows (start-up and memory take 1000)."""

MCIGEN, MCIX, FLOOR = "mcigen", "mcix", "floor"
BARE = "bare uvicorn"
"""The HTTP rows' third server: an ASGI app without the SDK (uvicorn alone)."""
UVICORN_WORKERS = "mcigen under uvicorn --workers"
"""A note of the two-worker rows: mcigen's app under uvicorn's own workers, with
the protocol docs/deployment.md gives it."""
CALLS: tuple[tuple[str, str, dict[str, Any]], ...] = (  # (row, tool, arguments)
    ("text", "greet", {"name": "Ann"}),
    ("http", "fetch", {}),
    ("cli", "echo", {"word": "hi"}),
)
MTDF_TOOL = {
    "name": "say",
    "description": "Print a word",
    "command": "echo",
    "subcommand": [
        {
            "name": "default",
            "description": "echo the word",
            "positional_args": [{"name": "word", "type": "string", "required": True}],
        }
    ],
}


@dataclass(frozen=True)
class Plan:
    starts: int
    """Start-ups timed per server and size."""
    rounds: int
    """Rounds of interleaved requests (one batch per server per round)."""
    per_round: int
    """Requests per server in a round."""
    seconds: float
    """Of each throughput measurement (split into four windows)."""
    clients: tuple[int, ...] = (16, 64)
    workers: tuple[int, ...] = (1, 2)

    call: Budget = Budget(run_seconds=0.15, repeat=7, max_seconds=5.0)
    """Of the MTDF row (in-process calls)."""


FULL = Plan(starts=7, rounds=10, per_round=30, seconds=2.0)
QUICK = Plan(
    starts=2,
    rounds=2,
    per_round=10,
    seconds=1.0,
    call=Budget(run_seconds=0.05, repeat=3, max_seconds=0.5),
)


# ------------------------------------------------------------------ the servers


@dataclass(frozen=True)
class Schema:
    """One schema, built into an mcigen package, and how each server serves it."""

    path: Path
    package: str

    @property
    def work(self) -> Path:
        return self.path.parent

    def stdio(
        self, mcix: Path | venvs.Missing, floor: Path | venvs.Missing
    ) -> dict[str, list[str] | venvs.Missing]:
        return {
            MCIGEN: [str(PYTHON), "-m", self.package, "serve"],
            MCIX: mcix if isinstance(mcix, venvs.Missing) else _mcix_argv(mcix, self),
            FLOOR: (
                floor
                if isinstance(floor, venvs.Missing)
                else [str(floor), str(FLOOR_SERVER), str(self.path)]
            ),
        }


def _mcix_argv(mcix: Path, schema: Schema) -> list[str]:
    return [str(mcix), "run", "--file", str(schema.path)]


def _env(schema: Schema) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MCIGEN_")}
    env["PYTHONPATH"] = str(schema.work)
    return env


def build(schema: dict[str, Any], work: Path, package: str, log: Any) -> Schema:
    path = schemas.write(schema, work / "bench.mci.json")
    log(f"{SECTION}: building {package}")
    subprocess.run(
        [str(PYTHON), "-m", "mcigen", "build", str(path), "-o", str(work / package)],
        check=True,
        capture_output=True,
        env={**os.environ, "XDG_CACHE_HOME": str(BUILD_CACHE)},
    )
    return Schema(path, package)


PORT = "{port}"
"""In a server's command, where its port goes (else uvicorn's options are added)."""


@contextlib.contextmanager
def uvicorn(
    argv: list[str], cwd: Path, env: Mapping[str, str], copies: int = 1
) -> Iterator[str]:
    """``argv`` serving: a uvicorn command without ``--port``, or a command that
    holds :data:`PORT` (mcigen's ``serve --http``, the floor's ``--reuse-port``),
    started ``copies`` times (each binding the port with ``SO_REUSEPORT``), each in
    a session of its own; yields the URL of its ``/mcp`` once every worker listens,
    and the process ids through :data:`SERVED`. The log goes to a file (a pipe
    nobody reads would fill and stop it)."""
    port = free_port()
    if any(PORT in arg for arg in argv):
        argv = [arg.replace(PORT, str(port)) for arg in argv]
    else:
        argv = [*argv, "--host", "127.0.0.1", "--port", str(port)]
        argv += ["--log-level", "warning"]
    with tempfile.TemporaryFile() as log, contextlib.ExitStack() as stack:
        servers = []
        for _ in range(copies):
            servers.append(
                subprocess.Popen(
                    argv,
                    cwd=cwd,
                    env=dict(env),
                    stdout=subprocess.DEVNULL,
                    stderr=log,
                    start_new_session=True,
                )
            )
            stack.callback(_stop, servers[-1])
        try:
            wait_until_listening(servers[0], port, timeout=120)
            _wait_for_listeners(servers, port, copies * _listeners(argv))
        except Exception as error:
            log.seek(0)
            said = log.read()[-2000:].decode(errors="replace")
            raise RuntimeError(f"{argv[0]} did not serve: {said}") from error
        SERVED[:] = [server.pid for server in servers]
        yield f"http://127.0.0.1:{port}/mcp"


def _stop(server: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError):  # it ended by itself
        os.killpg(server.pid, signal.SIGTERM)
    try:
        server.wait(timeout=20)
    except subprocess.TimeoutExpired:
        os.killpg(server.pid, signal.SIGKILL)
        server.wait()


def _listeners(argv: list[str]) -> int:
    """How many sockets listen at the port of ``argv`` once it serves: one per
    worker of ``serve --workers N`` (uvicorn's workers share one)."""
    if "serve" in argv and "--workers" in argv:
        return int(argv[argv.index("--workers") + 1])
    return 1


def _wait_for_listeners(
    servers: Sequence[subprocess.Popen[bytes]],
    port: int,
    count: int,
    timeout: float = 120,
) -> None:
    deadline = time.monotonic() + timeout
    while _listening(port) < count:
        ended = any(server.poll() is not None for server in servers)
        if ended or time.monotonic() > deadline:
            raise RuntimeError(f"{count} workers did not all listen at {port}")
        time.sleep(0.05)


def _listening(port: int) -> int:
    with open("/proc/net/tcp", encoding="ascii") as table:
        return sum(
            1
            for line in list(table)[1:]
            if line.split()[1].endswith(f":{port:04X}") and line.split()[3] == "0A"
        )


SERVED: list[int] = []
"""The process ids of the server last started (for its CPU time)."""


@dataclass(frozen=True)
class Command:
    """How a server is started."""

    argv: list[str]
    env: dict[str, str]
    copies: int = 1
    """Processes started, each binding the port itself (``SO_REUSEPORT``)."""


GUARDED = "mcigen_runtime.edge.connections:GuardedH11Protocol"
"""The protocol docs/deployment.md gives mcigen's app under uvicorn (``--http``)."""


def http_argvs(
    schema: Schema, floor: Path | venvs.Missing, workers: int, own: bool = False
) -> dict[str, Command | venvs.Missing]:
    """How each HTTP server is started: mcigen's app under uvicorn (``own``: under
    its own ``serve --http --workers N``), the floor's, and a bare ASGI app (no SDK)
    that shows what uvicorn alone costs. With ``own`` and several workers, the
    floor and the bare app are served as ``serve`` serves mcigen: N processes, each
    binding the port with ``SO_REUSEPORT`` in a session of its own."""
    tail = ["--workers", str(workers)]
    env = _env(schema)
    ours = [str(PYTHON), "-m", "uvicorn", f"{schema.package}.server:app", *tail]
    if workers > 1:  # the protocol docs/deployment.md gives uvicorn's workers
        ours += ["--http", GUARDED]
    if own:
        ours = [str(PYTHON), "-m", schema.package, "serve"]
        ours += ["--http", f"127.0.0.1:{PORT}", *tail]
    argvs: dict[str, Command | venvs.Missing] = {MCIGEN: Command(ours, env)}
    if isinstance(floor, venvs.Missing):
        argvs[FLOOR] = argvs[BARE] = floor
        return argvs
    floor_env = {**env, "FLOOR_SCHEMA": str(schema.path)}
    bare_env = {**env, "FLOOR_BARE": "1"}
    if own and workers > 1:
        each = [str(floor), str(FLOOR_SERVER), "--reuse-port", PORT]
        argvs[FLOOR] = Command(each, floor_env, copies=workers)
        argvs[BARE] = Command(each, bare_env, copies=workers)
        return argvs
    floor_app = [str(floor), "-m", "uvicorn", "floor_server:app", "--app-dir"]
    floor_app += [str(FLOOR_SERVER.parent), *tail]
    argvs[FLOOR] = Command(floor_app, floor_env)
    argvs[BARE] = Command(floor_app, bare_env)
    return argvs


# ------------------------------------------------------------------ measuring


def p99(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]


def tail_stats(values: list[float]) -> Stats:
    """The 99th percentile of ``values``; low and high are those of its two halves
    (every other sample), to show how firmly the tail is known."""
    halves = [p99(values[0::2]), p99(values[1::2])]
    return Stats(p99(values), min(halves), max(halves), len(values))


def start_up(argvs: dict[str, list[str]], cwd: Path, runs: int) -> dict[str, Stats]:
    """Seconds from starting each server to its answer to ``initialize``, the
    servers taking turns; a first, untimed start of each writes its ``.pyc``."""
    times: dict[str, list[float]] = {name: [] for name in argvs}
    for run in range(runs + 1):
        for name, argv in argvs.items():
            began = time.perf_counter()
            with rpc.StdioPeer(argv, cwd=cwd) as peer:
                peer.request("initialize", rpc.INITIALIZE)
                took = time.perf_counter() - began
            if run:
                times[name].append(took)
    return {name: Stats.of(values) for name, values in times.items()}


Action = Callable[[rpc.Peer], object]


def latencies(
    peers: Mapping[str, rpc.Peer],
    action: Action | Mapping[str, Action],
    plan: Plan,
    per_round: int | None = None,
    cpu: dict[str, list[float]] | None = None,
) -> dict[str, list[float]]:
    """Seconds each ``action`` (or each peer's own) took, per peer, the peers
    taking turns by rounds (after three untimed actions each). With ``cpu``, the
    CPU µs a call each stdio server used, one figure per round."""
    actions = {name: action if callable(action) else action[name] for name in peers}
    for name, peer in peers.items():
        for _ in range(3):
            actions[name](peer)
    times: dict[str, list[float]] = {name: [] for name in peers}
    calls = per_round or plan.per_round
    for _ in range(plan.rounds):
        for name, peer in peers.items():
            act = actions[name]
            used = _server_cpu_ns(peer)
            for _ in range(calls):
                began = time.perf_counter()
                act(peer)
                times[name].append(time.perf_counter() - began)
            if cpu is not None and used is not None:
                spent = (_server_cpu_ns(peer) or used) - used
                cpu.setdefault(name, []).append(spent / calls / 1e3)
    return times


def _server_cpu_ns(peer: rpc.Peer) -> int | None:
    if not isinstance(peer, rpc.StdioPeer):
        return None
    return task_cpu_ns(peer.process.pid)


def cpu_note(cpu: Mapping[str, list[float]], ours: str, theirs: str, what: str) -> str:
    """``what`` µs a call of ``ours`` and ``theirs`` (medians of the rounds), and
    the median of the rounds' ratios: taken in the same rounds, so load that
    slows both does not move it."""
    ratios = [a / b for a, b in zip(cpu[ours], cpu[theirs], strict=True) if b]
    mine, other = statistics.median(cpu[ours]), statistics.median(cpu[theirs])
    ratio = statistics.median(ratios) if ratios else float("nan")
    return f"{what}: {mine:.0f} µs against {other:.0f} µs, ×{ratio:.2f}"


@contextlib.contextmanager
def one_core() -> Iterator[None]:
    """This thread, and every process it starts meanwhile, on one core (the
    lowest it may use); as it was afterwards. A stdio server on the client's
    core answers a call in ~1.4× less CPU than one on the other core (the
    line and the answer cross between the cores' caches), and where the
    scheduler puts each server is not up to the bench: two servers compared
    on CPU must sit alike. Where affinity cannot be set (not Linux), as it is."""
    if not hasattr(os, "sched_setaffinity"):
        yield
        return
    allowed = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {min(allowed)})
    try:
        yield
    finally:
        os.sched_setaffinity(0, allowed)


@contextlib.contextmanager
def stdio_peers(
    argvs: Mapping[str, list[str] | venvs.Missing], cwd: Path
) -> Iterator[dict[str, rpc.StdioPeer]]:
    """An initialized session with each server that could be started."""
    with contextlib.ExitStack() as stack:
        peers: dict[str, rpc.StdioPeer] = {}
        for name, argv in argvs.items():
            if isinstance(argv, venvs.Missing):
                continue
            peer = stack.enter_context(rpc.StdioPeer(argv, cwd=cwd))
            peer.initialize()
            peers[name] = peer
        yield peers


def throughput(
    url: str, servers: Sequence[int], clients: int, seconds: float
) -> tuple[list[float], str]:
    """Calls/s of ``clients`` threads calling ``greet`` over HTTP, each on a
    connection of its own (a bare socket: see ``rpc.SocketPeer``), in four windows
    of ``seconds``; and where the CPU went: the clients' process and the server's
    processes (``servers`` and their children), in cores and per call, and how the
    connections were spread over the server's workers.

    The connections open one after another, each answering ``initialize`` before
    the next opens, as clients arriving over time would."""
    stop = threading.Event()
    ready = threading.Barrier(clients + 1)
    ended: list[list[float]] = [[] for _ in range(clients)]
    errors: list[BaseException] = []
    peers: list[rpc.SocketPeer] = []
    for _ in range(clients):  # one by one (see the docstring)
        peers.append(rpc.SocketPeer(url))
        peers[-1].initialize()

    def client(index: int, peer: rpc.SocketPeer) -> None:
        try:
            for _ in range(3):
                rpc.call(peer, "greet", {"name": "Ann"})
            ready.wait()
            while not stop.is_set():
                rpc.call(peer, "greet", {"name": "Ann"})
                ended[index].append(time.perf_counter())
        except BaseException as error:  # noqa: BLE001 - raised by the caller
            errors.append(error)
            ready.abort()
        finally:
            peer.close()

    threads = [
        threading.Thread(target=client, args=(n, peer)) for n, peer in enumerate(peers)
    ]
    for thread in threads:
        thread.start()
    spread: list[int] = []
    try:
        ready.wait(timeout=120)
        for server in servers:
            spread += connections_per_worker(server, url)
        began, ours = time.perf_counter(), time.process_time()
        theirs = sum(map(tree_cpu_ns, servers))
        stop.wait(seconds)  # the measuring window itself
        cpu_server = (sum(map(tree_cpu_ns, servers)) - theirs) / 1e9
        cpu_client, finished = time.process_time() - ours, time.perf_counter()
    except threading.BrokenBarrierError:
        if not errors:
            raise
    finally:
        stop.set()
        for thread in threads:
            thread.join()
    if errors:
        raise errors[0]
    window = seconds / 4
    counts = [0] * 4
    for times in ended:
        for moment in times:
            slot = int((moment - began) / window)
            if 0 <= slot < 4:
                counts[slot] += 1
    calls = max(1, sum(began <= t <= finished for times in ended for t in times))
    elapsed = finished - began
    cpu = (
        f"CPU: clients {cpu_client / elapsed:.2f} cores "
        f"({cpu_client / calls * 1e3:.2f} ms/call), server {cpu_server / elapsed:.2f}"
        f" ({cpu_server / calls * 1e3:.2f} ms/call)"
    )
    if len(spread) > 1:
        spread.sort(reverse=True)
        cpu += f", connections per worker {'/'.join(map(str, spread))}"
    return [count / window for count in counts], cpu


def connections_per_worker(root: int, url: str) -> list[int]:
    """How many of the connections established to ``url``'s port each worker of
    the server ``root`` holds, most first: its children under uvicorn's or
    ``serve``'s ``--workers``, else itself."""
    port = f"{urlsplit(url).port:04X}"
    inodes = set()
    with open("/proc/net/tcp", encoding="ascii") as table:
        for line in list(table)[1:]:
            fields = line.split()
            if fields[1].endswith(f":{port}") and fields[3] == "01":  # ESTABLISHED
                inodes.add(f"socket:[{fields[9]}]")
    held = []
    for pid in _workers(root):
        try:
            links = [
                os.readlink(f"/proc/{pid}/fd/{fd}")
                for fd in os.listdir(f"/proc/{pid}/fd")
            ]
        except OSError:
            continue
        held.append(sum(link in inodes for link in links))
    return sorted(held, reverse=True)


def _workers(root: int) -> list[int]:
    """The server ``root``'s workers: its children that serve (not
    multiprocessing's helper, nor a warden), else itself."""
    found = []
    for pid in _children(root):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
                said = cmdline.read()
        except OSError:
            continue
        if b"resource_tracker" not in said and b"cgroup.kill" not in said:
            found.append(pid)
    return found or [root]


def _children(pid: int) -> list[int]:
    """``pid``'s children (of every thread)."""
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
        found: list[int] = []
        for task in tasks:
            with open(f"/proc/{pid}/task/{task}/children", encoding="ascii") as listed:
                found += map(int, listed.read().split())
    except OSError:
        return []
    return found


def _figures(
    times: Mapping[str, list[float]],
) -> tuple[dict[str, Stats], dict[str, Stats]]:
    """Medians and p99s, in µs."""
    medians, tails = {}, {}
    for name, values in times.items():
        us = [value * 1e6 for value in values]
        middle = statistics.median(us)
        rounds = [statistics.median(us[i : i + 10]) for i in range(0, len(us), 10)]
        medians[name] = Stats(middle, min(rounds), max(rounds), len(us))
        tails[name] = tail_stats(us)
    return medians, tails


class Serving:
    """The rows, given the servers' venvs and the packages built."""

    def __init__(self, root: Path, http_base: str, sizes: list[int], log: Any):
        self.log = log
        self.mcix, self.floor = venvs.mcix(), venvs.floor()
        self.served = build(
            schemas.serve_schema(http_base), root / "serve", PACKAGE, log
        )
        self.scaled = {
            n: build(schemas.scale_schema(n), root / f"scale{n}", f"bench{n}", log)
            for n in sorted(sizes)
        }
        self.missing = "; ".join(
            f"{name} not measured: {venv.reason}"
            for name, venv in ((MCIX, self.mcix), (FLOOR, self.floor))
            if isinstance(venv, venvs.Missing)
        )

    def row(
        self,
        name: str,
        unit: str,
        figures: Mapping[str, Stats],
        target: str | None = None,
        note: str = "",
        baseline: str = FLOOR,
    ) -> Row:
        notes = [part for part in (note, self.missing) if part]
        return Row(
            SECTION,
            name,
            unit,
            figures.get(MCIGEN),
            mci_py=figures.get(MCIX),
            baseline=figures.get(baseline),
            baseline_name=BASELINES[baseline],
            target=target,
            note="; ".join(notes),
        )

    def start_up(self, plan: Plan) -> list[Row]:
        rows = []
        sizes = [(3, self.served)] + [
            (n, s) for n, s in self.scaled.items() if n >= 1000
        ]
        for tools, schema in sizes:
            self.log(f"{SECTION}: stdio start-up, {tools} tools")
            argvs = {
                name: argv
                for name, argv in schema.stdio(self.mcix, self.floor).items()
                if not isinstance(argv, venvs.Missing)
            }
            figures = start_up(argvs, schema.work, plan.starts)
            rows.append(
                self.row(
                    f"stdio start-up to initialize, {tools} tools",
                    "s",
                    figures,
                    "serve start",
                )
            )
        return rows

    def listings(self, plan: Plan) -> list[Row]:
        rows = []
        for tools, schema in self.scaled.items():
            self.log(f"{SECTION}: tools/list, {tools} tools")
            with stdio_peers(schema.stdio(self.mcix, self.floor), schema.work) as peers:
                per_round = max(3, plan.per_round // (1 + tools // 100))
                times = latencies(peers, rpc.list_all, plan, per_round)
            medians, _ = _figures(times)
            rows.append(
                self.row(
                    f"tools/list (every page), {tools} tools, stdio",
                    "us",
                    medians,
                    "serve list",
                    "one page each (mcigen pages above 1 MiB of tools)",
                )
            )
        return rows

    def stdio_calls(self, plan: Plan) -> list[Row]:
        self.log(f"{SECTION}: tools/call over stdio")
        schema = self.served
        rows = []
        with stdio_peers(schema.stdio(self.mcix, self.floor), schema.work) as peers:
            for kind, tool, arguments in CALLS:
                times = latencies(
                    peers,
                    functools.partial(rpc.call, tool=tool, arguments=arguments),
                    plan,
                )
                rows += self._call_rows(f"{kind}, stdio", kind, times)
        return rows

    def _call_rows(
        self, label: str, kind: str, times: dict[str, list[float]]
    ) -> list[Row]:
        medians, tails = _figures(times)
        target = "serve text call" if kind == "text" else None
        return [
            self.row(f"tools/call {label}, median", "us", medians, target),
            self.row(f"tools/call {label}, p99", "us", tails, target),
        ]

    def http_calls(self, plan: Plan) -> list[Row]:
        self.log(f"{SECTION}: tools/call over HTTP")
        rows = []
        servers = http_argvs(self.served, self.floor, 1)
        with contextlib.ExitStack() as stack:
            peers: dict[str, rpc.Peer] = {}
            for name in (MCIGEN, FLOOR):
                command = servers[name]
                if isinstance(command, venvs.Missing):
                    continue
                url = stack.enter_context(
                    uvicorn(command.argv, self.served.work, command.env)
                )
                peer = rpc.HttpPeer(url)
                stack.callback(peer.close)
                peer.initialize()
                peers[name] = peer
            for kind, tool, arguments in CALLS:
                times = latencies(
                    peers,
                    functools.partial(rpc.call, tool=tool, arguments=arguments),
                    plan,
                )
                rows += self._call_rows(f"{kind}, HTTP (1 worker)", kind, times)
        for row in rows:
            row.note = "; ".join(p for p in ("mcix has no HTTP", row.note) if p)
        return rows

    def throughput(self, plan: Plan) -> list[Row]:
        """mcigen served by ``serve --http --workers N``, the floor and the bare
        app by uvicorn with one worker, and with N as ``serve`` serves mcigen (see
        :func:`http_argvs`); in the notes of N workers, mcigen's app under
        ``uvicorn --workers N``."""
        rows = []
        single: dict[tuple[str, int], float] = {}
        for workers in plan.workers:
            servers = http_argvs(self.served, self.floor, workers, own=True)
            figures: dict[int, dict[str, Stats]] = {n: {} for n in plan.clients}
            cpu: dict[int, dict[str, str]] = {n: {} for n in plan.clients}
            if workers > 1:
                servers[UVICORN_WORKERS] = http_argvs(self.served, self.floor, workers)[
                    MCIGEN
                ]
            for name, command in servers.items():
                if isinstance(command, venvs.Missing):
                    continue
                self.log(f"{SECTION}: HTTP throughput, {name}, {workers} worker(s)")
                with uvicorn(
                    command.argv, self.served.work, command.env, command.copies
                ) as url:
                    pids = list(SERVED)
                    for clients in plan.clients:
                        rates, used = throughput(url, pids, clients, plan.seconds)
                        figures[clients][name] = Stats.of(rates)
                        cpu[clients][name] = used
            for clients in plan.clients:
                found = figures[clients]
                if workers == 1:
                    for name, stats in found.items():
                        single[(name, clients)] = stats.median
                row = self.row(
                    f"HTTP tools/call, {clients} clients, {workers} worker"
                    + ("s" if workers > 1 else ""),
                    "calls/s",
                    found,
                    "serve throughput" if workers == 1 else "serve scaling",
                    " | ".join(f"{n}: {c}" for n, c in cpu[clients].items()),
                )
                if BARE in found:
                    row.note += f" | bare uvicorn (no SDK) {found[BARE].median:.0f}/s"
                for name in (MCIGEN, FLOOR, UVICORN_WORKERS):
                    one = single.get(
                        (MCIGEN if name == UVICORN_WORKERS else name, clients)
                    )
                    if workers == 1 or not one or name not in found:
                        continue
                    scaling = found[name].median / one
                    if name == MCIGEN:
                        row.extra["scaling"] = scaling
                        row.extra["scales"] = scaling >= 1.8
                    rate = f"{found[name].median:.0f}/s " if name != MCIGEN else ""
                    row.note += f" | {name} {rate}×{scaling:.2f} one worker's"
                rows.append(row)
        return rows

    def broker(self, plan: Plan) -> Row:
        self.log(f"{SECTION}: broker meta_call")
        schema = self.served
        direct = [str(PYTHON), "-m", schema.package, "serve"]
        argvs: dict[str, list[str] | venvs.Missing] = {
            MCIGEN: [*direct, "--broker"],
            DIRECT: direct,
        }
        with one_core(), stdio_peers(argvs, schema.work) as peers:
            path = _broker_path(peers[MCIGEN], "greet")
            meta = {"path": path, "args": {"name": "Ann"}}
            actions: dict[str, Action] = {
                MCIGEN: lambda peer: rpc.call(peer, "meta_call", meta),
                DIRECT: lambda peer: rpc.call(peer, "greet", {"name": "Ann"}),
            }
            cpu: dict[str, list[float]] = {}
            times = latencies(peers, actions, plan, cpu=cpu)
        medians, _ = _figures(times)
        return self.row(
            "broker meta_call of a text tool, stdio",
            "us",
            medians,
            "broker",
            cpu_note(cpu, MCIGEN, DIRECT, "server CPU a call"),
            baseline=DIRECT,
        )

    def mtdf(self, work: Path, plan: Plan) -> Row:
        self.log(f"{SECTION}: MTDF call")
        (work / "tools").mkdir(parents=True, exist_ok=True)
        (work / "tools" / "say.json").write_text(json.dumps(MTDF_TOOL))
        subprocess.run(
            [str(PYTHON), "-m", "mcigen", "build", "tools", "-o", "saypkg"],
            cwd=work,
            check=True,
            capture_output=True,
        )
        setup = "import subprocess\nfrom saypkg import say\n"
        calls = {
            MCIGEN: ("say(word='hi')", False),
            SUBPROCESS: ("subprocess.run(['echo', 'hi'], capture_output=True)", False),
        }
        with Worker(PYTHON, work, setup, calls) as worker:
            timed = [Timed(worker, key) for key in calls]
            found = dict(zip(calls, interleave(timed, plan.call), strict=True))
            own, children = _cpu_rounds(worker, list(calls), plan)
        figures = {name: timing.stats for name, timing in found.items()}
        note = "; ".join(
            (
                cpu_note(own, MCIGEN, SUBPROCESS, "own CPU a call"),
                cpu_note(children, MCIGEN, SUBPROCESS, "the command's"),
            )
        )
        return self.row(
            "MTDF tool call (echo hi), in process",
            "us",
            figures,
            "mtdf",
            note,
            baseline=SUBPROCESS,
        )

    def memory(self) -> Row:
        tools, schema = max(self.scaled.items())
        self.log(f"{SECTION}: peak memory, {tools} tools")
        figures = {}
        for name, argv in schema.stdio(self.mcix, self.floor).items():
            if isinstance(argv, venvs.Missing):
                continue
            with rpc.StdioPeer(argv, cwd=schema.work) as peer:
                peer.initialize()
                rpc.list_all(peer)
                rpc.call(peer, "tool_00000", schemas.SCALE_PROPS)
                figures[name] = Stats.of([peer.peak_rss_mib()])
        return self.row(
            f"peak memory, {tools}-tool server (after list + call)",
            "MiB",
            figures,
        )


def _cpu_rounds(
    worker: Worker, keys: list[str], plan: Plan
) -> tuple[dict[str, list[float]], dict[str, list[float]]]:
    """CPU µs a call of each of ``keys``, the calling process's and its children's,
    the keys taking turns by rounds."""
    own: dict[str, list[float]] = {key: [] for key in keys}
    children: dict[str, list[float]] = {key: [] for key in keys}
    for _ in range(plan.rounds):
        for key in keys:
            spent = worker.cpu(key, plan.per_round)
            own[key].append(spent.cpu / plan.per_round * 1e6)
            children[key].append(spent.children / plan.per_round * 1e6)
    return own, children


DIRECT, SUBPROCESS = "direct", "subprocess"
BASELINES = {
    FLOOR: "a hand-written server on the same SDK (floor_server.py)",
    DIRECT: "tools/call of the tool itself on a plain `serve`",
    SUBPROCESS: "subprocess.run(['echo', 'hi'], capture_output=True)",
}


def _broker_path(peer: rpc.Peer, tool: str) -> str:
    """The broker's path of ``tool``, found by walking ``meta_tree``."""
    pending = ["/"]
    while pending:
        answer = peer.request(
            "tools/call", {"name": "meta_tree", "arguments": {"path": pending.pop()}}
        )
        for child in answer["structuredContent"]["children"]:
            if child["type"] == "node":
                pending.append(child["path"])
            elif child["path"].rsplit("/", 1)[-1] == tool:
                return str(child["path"])
    raise rpc.RpcError(f"the broker has no {tool}")


def parts(
    root: Path, http_base: str, plan: Plan, sizes: list[int], log: Any
) -> list[Callable[[], list[Row] | Row]]:
    """The section's parts, each giving its rows (``run.py`` makes a failing part
    one FAILED row): builds the packages first."""
    serving = Serving(root, http_base, sizes, log)
    return [
        lambda: serving.start_up(plan),
        lambda: serving.listings(plan),
        lambda: serving.stdio_calls(plan),
        lambda: serving.http_calls(plan),
        lambda: serving.throughput(plan),
        lambda: serving.broker(plan),
        lambda: serving.mtdf(root / "mtdf", plan),
        serving.memory,
    ]
