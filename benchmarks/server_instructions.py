"""Instructions a ``tools/call greet`` costs a whole HTTP server process, uvicorn and
h11 included, counted by callgrind (load does not move them); or a stdio server's,
direct or through the broker.

    python -m benchmarks.server_instructions SERVER CLIENTS CALLS
    python -m benchmarks.server_instructions stdio|broker CALLS [--keep FILE]

SERVER: ``mcigen`` (``serve --http --workers 1``), ``mcigen2`` (``serve --http
--workers 2``: both workers counted, the supervisor not), ``floor`` (``uvicorn
floor_server:app``). The serving rows' schema is built once (``.cache/bench/asgi``);
the server runs under ``valgrind --tool=callgrind --trace-children=yes``; CLIENTS
threads, each on a keep-alive connection of its own, ``initialize`` and call ``greet``
until every one has made 5 calls, then, the workers' counts zeroed, each makes CALLS
calls at once; the instructions the workers counted meanwhile, per call
(``PYTHONHASHSEED=0``). With N clients a worker has up to N requests in flight, as
under load; ``benchmarks.asgi_calls`` counts the app alone, in process.

``stdio`` and ``broker`` are the serving rows' broker row counted so: ``serve``
answering ``tools/call greet``, ``serve --broker`` answering ``meta_call`` of
``greet``'s path, one client over the server's pipes; 50 calls, the count zeroed,
CALLS calls, the server's instructions per call (user space: the kernel's reading
and writing of the lines is not counted). ``--keep FILE`` copies callgrind's output
there, for ``callgrind_annotate``.
"""

from __future__ import annotations

import glob
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from benchmarks import asgi_calls, rpc, serving, venvs
from tests.mcp_servers import free_port

GREETING = "Hello Ann from us!"


def command(server: str, schema: serving.Schema) -> tuple[list[str], dict[str, str]]:
    floor = venvs.floor()
    workers = 2 if server == "mcigen2" else 1
    mcigen = server.startswith("mcigen")
    found = serving.http_argvs(schema, floor, workers, own=mcigen)
    chosen = found[serving.MCIGEN if mcigen else serving.FLOOR]
    if isinstance(chosen, venvs.Missing):
        raise SystemExit(chosen.reason)
    # Under callgrind a request's head may take seconds to be read.
    return chosen.argv, {**chosen.env, "MCIGEN_HEADER_TIMEOUT": "600"}


def count(server: str, clients: int, calls: int) -> tuple[float, list[int]]:
    """Instructions a call, and the connections each worker held."""
    path = asgi_calls.built()
    schema = serving.Schema(path, asgi_calls.PACKAGE)
    argv, env = command(server, schema)
    port = free_port()
    if any(serving.PORT in arg for arg in argv):
        argv = [arg.replace(serving.PORT, str(port)) for arg in argv]
    else:
        argv += ["--host", "127.0.0.1", "--port", str(port), "--log-level", "warning"]
    workers = 2 if server == "mcigen2" else 1
    with (
        tempfile.TemporaryDirectory() as directory,
        open(Path(directory) / "log", "wb") as log,
    ):
        valgrind = ["valgrind", "--tool=callgrind", "--trace-children=yes"]
        valgrind.append(f"--callgrind-out-file={directory}/cg.%p")
        process = subprocess.Popen(
            [*valgrind, *argv],
            cwd=schema.work,
            env={**env, "PYTHONHASHSEED": "0"},
            stdout=subprocess.DEVNULL,
            stderr=log,
            start_new_session=True,
        )
        try:
            deadline = time.monotonic() + 600
            while serving._listening(port) < workers:
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(Path(directory, "log").read_text()[-2000:])
                time.sleep(0.5)
            url = f"http://127.0.0.1:{port}/mcp"
            return _driven(url, process.pid, directory, clients, calls)
        finally:
            os.killpg(process.pid, signal.SIGTERM)
            process.wait(timeout=60)


def _driven(
    url: str, root: int, directory: str, clients: int, calls: int
) -> tuple[float, list[int]]:
    warmed, lock = [0], threading.Lock()
    ready, go = threading.Barrier(clients + 1), threading.Barrier(clients + 1)
    failed: list[BaseException] = []

    def client() -> None:
        try:
            peer = rpc.SocketPeer(url)
            peer.initialize()
            for _ in range(5):
                rpc.call(peer, "greet", {"name": "Ann"})
            with lock:
                warmed[0] += 1
            while warmed[0] < clients:  # uvicorn closes a connection idle 5 s
                rpc.call(peer, "greet", {"name": "Ann"})
            ready.wait()
            go.wait()
            for _ in range(calls):
                if rpc.call(peer, "greet", {"name": "Ann"}) != GREETING:
                    raise rpc.RpcError("not the greeting")
        except BaseException as error:  # noqa: BLE001 - raised below
            failed.append(error)
            ready.abort()
            go.abort()

    threads = [threading.Thread(target=client) for _ in range(clients)]
    for thread in threads:
        thread.start()
    ready.wait(timeout=600)
    workers = serving._workers(root)
    spread = serving.connections_per_worker(root, url)
    _control(workers, "-z")
    go.wait()
    for thread in threads:
        thread.join()
    if failed:
        raise failed[0]
    total = sum(_total(path) or 0 for path in _dumped(workers, directory))
    return total / (clients * calls), spread


def count_stdio(kind: str, calls: int, keep: str | None = None) -> float:
    """Instructions a call of a stdio server: ``stdio`` (a direct ``tools/call``)
    or ``broker`` (``meta_call`` of the same tool)."""
    path = asgi_calls.built()
    argv = [str(serving.PYTHON), "-m", asgi_calls.PACKAGE, "serve"]
    if kind == "broker":
        argv.append("--broker")
    schema = serving.Schema(path, asgi_calls.PACKAGE)
    env = {**serving._env(schema), "PYTHONHASHSEED": "0"}
    rpc.TIMEOUT = 600
    with tempfile.TemporaryDirectory() as directory:
        valgrind = ["valgrind", "--tool=callgrind"]
        valgrind.append(f"--callgrind-out-file={directory}/cg.%p")
        with rpc.StdioPeer([*valgrind, *argv], cwd=schema.work, env=env) as peer:
            peer.initialize()
            name = "greet"
            arguments: dict[str, Any] = {"name": "Ann"}
            if kind == "broker":
                path_of = serving._broker_path(peer, "greet")
                name = "meta_call"
                arguments = {"path": path_of, "args": arguments}
            for _ in range(50):
                rpc.call(peer, name, arguments)
            pid = [peer.process.pid]
            _control(pid, "-z")
            for _ in range(calls):
                rpc.call(peer, name, arguments)
            (written,) = _dumped(pid, directory)
            if keep is not None:
                shutil.copyfile(written, keep)
            total = _total(written)
    if total is None:
        raise RuntimeError("callgrind wrote no total")
    return total / calls


def _dumped(pids: list[int], directory: str) -> list[str]:
    """``callgrind_control -d`` for ``pids``: the files of counts they wrote in
    ``directory``, once written."""
    before = set(glob.glob(f"{directory}/cg.*"))
    _control(pids, "-d")
    deadline = time.monotonic() + 60
    while len(set(glob.glob(f"{directory}/cg.*")) - before) < len(pids):
        if time.monotonic() > deadline:
            raise RuntimeError("callgrind wrote no counts")
        time.sleep(0.2)
    time.sleep(0.5)  # written whole
    return sorted(set(glob.glob(f"{directory}/cg.*")) - before)


def _total(path: str) -> int | None:
    """The instructions a file of callgrind's counts totals; None if it says none."""
    for line in Path(path).read_text(errors="replace").splitlines():
        if line.startswith(("summary:", "totals:")):
            return int(line.split()[1])
    return None


def _control(pids: list[int], *args: str) -> None:
    """``callgrind_control ARGS`` for each of ``pids`` at once (and only those:
    other callgrind runs on this machine are not ours)."""
    running = [
        subprocess.Popen(
            ["callgrind_control", *args, str(pid)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for pid in pids
    ]
    for each in running:
        each.wait()


def main(argv: list[str]) -> None:
    if argv[0] in ("stdio", "broker"):
        keep = argv[argv.index("--keep") + 1] if "--keep" in argv else None
        per_call = count_stdio(argv[0], int(argv[1]), keep)
        print(f"{per_call:12,.0f} instructions a call  {argv[0]} (stdio)")
        return
    server, clients, calls = argv[0], int(argv[1]), int(argv[2])
    per_call, spread = count(server, clients, calls)
    print(
        f"{per_call:12,.0f} instructions a call  {server}, {clients} clients"
        f" (connections per worker {'/'.join(map(str, spread))})"
    )


if __name__ == "__main__":
    main(sys.argv[1:])
