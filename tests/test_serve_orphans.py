"""No process a served command leaves behind outlives its server (issue 29, item
10), with a real ``python -m PKG serve`` over stdio.

A cli tool starts a ``sleep 1000`` that leaves the command (``setsid``, a double
fork, ``nohup … &``, its output sent elsewhere, so the call ends at once) and
writes that sleep's pid to a file. Ended by SIGTERM, the server takes the sleep
along. Killed by SIGKILL, it can do nothing itself: where it may make a cgroup v2
(root here), it has moved into one of its own, so its commands were born there,
and a warden empties it once the server is gone, every command and all it started.
Elsewhere (here: a server that sees the cgroup file system read-only) the kernel
kills each command still running (its own process, PR_SET_PDEATHSIG); a command's
children live on, as docs/serving.md says.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import httpx
import pytest
from mcigen_runtime.executors.orphans import is_zombie

from .conftest import built_package, schema_of, write_schema
from .test_serve_lifecycle import (
    StdioClient,
    alive,
    call_request,
    exited_within,
    http_server,
    leader,
    sleeper,
)

pytestmark = pytest.mark.skipif(
    sys.platform != "linux", reason="subreaper and parent-death signal are Linux's"
)

QUIET = "</dev/null >/dev/null 2>&1"
DETACHED = {
    "setsid": f'setsid sleep 1000 {QUIET} & echo $! > "$0"',
    "double_fork": f'(sh -c \'sleep 1000 {QUIET} & echo $! > "$0"\' "$0" &)',
    "nohup": f'nohup sleep 1000 {QUIET} & echo $! > "$0"',
}
HEADERS = {
    "Content-Type": "application/json",
    "Accept": "application/json, text/event-stream",
    "MCP-Protocol-Version": "2025-06-18",
}
NESTED = (
    "import os, sys, time\n"
    "from mcigen_runtime.executors import warden\n"
    "assert warden.guard() is not None\n"
    'open(sys.argv[1], "w").write(str(os.getpid()))\n'
    "time.sleep(1000)\n"
)
"""What the ``nested`` tool runs: a server's containment (a cgroup of its own
below the outer server's, with its warden), as a server served by a server has."""
TOOLS = [
    *(sleeper(name, script) for name, script in DETACHED.items()),
    sleeper("running", 'echo $$ > "$0"; exec sleep 1000'),
    sleeper("parent", 'sleep 1000 & echo $! > "$0"; wait'),
    sleeper("nested", f"exec {sys.executable} -c '{NESTED}' \"$0\""),
]


@pytest.fixture(scope="module")
def package(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    directory = tmp_path_factory.mktemp("orphans")
    schema = write_schema(directory, schema_of(*TOOLS), "orphans.mci.json")
    with built_package(schema, directory / "orphanspkg") as built:
        yield built


@pytest.fixture
def stdio(package: ModuleType) -> Iterator[StdioClient]:
    client = StdioClient(package)
    yield client
    client.close()


@pytest.fixture
def pidfile(tmp_path: Path) -> Iterator[Path]:
    path = tmp_path / "pid"
    yield path
    if path.exists() and path.read_text().strip():  # whatever a failed test left
        try:
            os.kill(int(path.read_text()), signal.SIGKILL)
        except ProcessLookupError:
            pass


def gone_within(seconds: float, pid: int) -> bool:
    deadline = time.monotonic() + seconds
    while alive(pid) and time.monotonic() < deadline:
        time.sleep(0.02)
    return not alive(pid)


def detach(stdio: StdioClient, tool: str, pidfile: Path) -> int:
    """Call ``tool``, which ends at once; the pid of the sleep it left running."""
    stdio.call(1, tool, pidfile)
    answer = stdio.receive()
    assert answer["result"]["isError"] is False, answer
    sleep = leader(pidfile)
    assert alive(sleep)
    return sleep


@pytest.mark.parametrize("tool", DETACHED)
def test_a_terminated_server_takes_what_its_commands_left_along(
    stdio: StdioClient, pidfile: Path, tool: str
) -> None:
    sleep = detach(stdio, tool, pidfile)
    group = _cgroup(sleep)
    stdio.process.send_signal(signal.SIGTERM)
    assert exited_within(5, stdio.process) == -signal.SIGTERM
    assert gone_within(10, sleep)
    if group.name.startswith("mcigen-serve-"):  # its warden removes it
        assert _removed_within(2, group)


def test_a_terminated_http_server_takes_what_its_commands_left_along(
    package: ModuleType, pidfile: Path
) -> None:
    serve = ("-m", package.__name__, "serve", "--http")
    with http_server(package, *serve) as (process, address):
        body = call_request(address, "double_fork", pidfile).split(b"\r\n\r\n")[1]
        answer = httpx.post(f"http://{address}/mcp", content=body, headers=HEADERS)
        assert answer.json()["result"]["isError"] is False
        sleep = leader(pidfile)
        process.send_signal(signal.SIGTERM)
        assert exited_within(5, process) is not None
        assert gone_within(10, sleep)


def test_what_a_command_left_is_reaped_when_it_exits(
    stdio: StdioClient, pidfile: Path, tmp_path: Path
) -> None:
    """The server adopts the sleep; once it is killed, the next call reaps it
    (no zombie stays a child of a long-lived server)."""
    sleep = detach(stdio, "setsid", pidfile)
    assert _parent(sleep) == stdio.process.pid
    os.kill(sleep, signal.SIGKILL)
    # the call reaps the zombies it finds: the sleep must be one by then (a
    # SIGKILL is delivered, not waited for)
    deadline = time.monotonic() + 10
    while not is_zombie(sleep) and time.monotonic() < deadline:
        time.sleep(0.02)
    detach(stdio, "setsid", tmp_path / "second")
    deadline = time.monotonic() + 10
    while Path(f"/proc/{sleep}").exists() and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not Path(f"/proc/{sleep}").exists()
    os.kill(leader(tmp_path / "second"), signal.SIGKILL)


@pytest.mark.parametrize("tool", DETACHED)
def test_a_killed_server_takes_what_its_commands_left_along_in_its_cgroup(
    stdio: StdioClient, pidfile: Path, tool: str
) -> None:
    """Where the server may make a cgroup v2 (root here), its commands run in it,
    and its warden empties and removes it once the server is gone."""
    if not _may_make_cgroup():
        pytest.skip("no cgroup v2 that this user may create here")
    sleep = detach(stdio, tool, pidfile)
    group = _cgroup(sleep)
    assert group.name == f"mcigen-serve-{stdio.process.pid}"
    _killed(stdio)
    assert gone_within(10, sleep)
    assert _removed_within(2, group)


def test_a_killed_server_takes_its_running_commands_along(
    stdio: StdioClient, pidfile: Path
) -> None:
    stdio.call(1, "running", pidfile)
    command = leader(pidfile)
    _killed(stdio)
    assert gone_within(10, command)


def test_a_killed_server_takes_a_running_command_and_its_children_along(
    stdio: StdioClient, pidfile: Path
) -> None:
    """The call is still running (``sh`` waits for its ``sleep``) when the server
    is killed: nothing of it is left, the ``sleep`` included."""
    if not _may_make_cgroup():
        pytest.skip("no cgroup v2 that this user may create here")
    stdio.call(1, "parent", pidfile)
    sleep = leader(pidfile)
    assert _cgroup(sleep).name == f"mcigen-serve-{stdio.process.pid}"
    _killed(stdio)
    assert gone_within(10, sleep)


def test_a_killed_server_whose_warden_was_killed_takes_its_running_commands_along(
    stdio: StdioClient, pidfile: Path
) -> None:
    """Once its warden is gone, the server starts its commands with the parent-death
    signal again."""
    if not _may_make_cgroup():
        pytest.skip("no cgroup v2 that this user may create here")
    # The server contains its commands as it hands over to the SDK's server, at
    # the first message it does not answer early.
    stdio.send(id=0, method="tools/call", params={"name": "none", "arguments": {}})
    assert stdio.receive()["id"] == 0
    warden, group = _guarded(stdio.process.pid)
    os.kill(warden, signal.SIGKILL)
    assert gone_within(10, warden)
    stdio.call(1, "running", pidfile)
    command = leader(pidfile)
    _killed(stdio)
    assert gone_within(10, command)
    group.rmdir()  # the warden's work


def test_a_killed_server_without_a_cgroup_takes_its_running_commands_along(
    package: ModuleType, pidfile: Path
) -> None:
    """Where no cgroup may be made, the parent-death signal kills the command."""
    mount = _cgroup_mount()
    read_only = f'mount -o remount,bind,ro {mount} && exec "$@"'
    launcher = ("unshare", "--mount", "--", "sh", "-c", read_only, "sh")
    if mount is None or subprocess.run([*launcher, "true"]).returncode != 0:
        pytest.skip("no cgroup v2 that this user may hide from a server")
    stdio = StdioClient(package, launcher)
    try:
        stdio.call(1, "running", pidfile)
        command = leader(pidfile)
        assert not _cgroup(command).name.startswith("mcigen-serve-")
        _killed(stdio)
        assert gone_within(10, command)
    finally:
        stdio.close()


def test_a_killed_server_removes_the_cgroup_of_a_server_it_served(
    stdio: StdioClient, pidfile: Path
) -> None:
    """A command that contains itself as a server does (its cgroup inside the
    outer server's, its warden in the outer one): the outer server killed, the
    outer warden kills both and removes both cgroups, innermost first."""
    if not _may_make_cgroup():
        pytest.skip("no cgroup v2 that this user may create here")
    stdio.call(1, "nested", pidfile)
    inner = leader(pidfile)
    group = _cgroup(inner)
    assert group.name == f"mcigen-serve-{inner}"
    assert group.parent.name == f"mcigen-serve-{stdio.process.pid}"
    _killed(stdio)
    assert gone_within(10, inner)
    assert _removed_within(5, group) and _removed_within(5, group.parent)


def _killed(stdio: StdioClient) -> None:
    """SIGKILL the server, which nothing can catch, and see it end by it."""
    stdio.process.send_signal(signal.SIGKILL)
    assert exited_within(5, stdio.process) == -signal.SIGKILL


def _guarded(server: int) -> tuple[int, Path]:
    """The pid of ``server``'s warden and the cgroup the server moved into."""
    group = _cgroup(server)
    assert group.name == f"mcigen-serve-{server}"
    (warden,) = (
        pid
        for pid in _children(server)
        if b"cgroup.kill" in Path(f"/proc/{pid}/cmdline").read_bytes()
    )
    return warden, group


def _children(pid: int) -> list[int]:
    tasks = Path(f"/proc/{pid}/task").iterdir()
    return [
        int(child)
        for task in tasks
        for child in (task / "children").read_text().split()
    ]


def _parent(pid: int) -> int:
    with open(f"/proc/{pid}/stat", "rb") as stat:
        return int(stat.read().rpartition(b")")[2].split()[1])


def _cgroup(pid: int) -> Path:
    """The directory of ``pid``'s cgroup v2 (of its hierarchy's mount)."""
    groups = Path(f"/proc/{pid}/cgroup").read_text().splitlines()
    path = next(line[3:] for line in groups if line.startswith("0::"))
    return Path(_cgroup_mount() or "/nonexistent", path.lstrip("/"))


def _cgroup_mount() -> str | None:
    """Where the cgroup v2 hierarchy is mounted, if it is."""
    for line in Path("/proc/self/mountinfo").read_text().splitlines():
        mount, _, kind = line.partition(" - ")
        if kind.split()[0] == "cgroup2":
            return mount.split()[4]
    return None


def _may_make_cgroup() -> bool:
    own = _cgroup(os.getpid())
    try:
        (own / f"mcigen-probe-{os.getpid()}").mkdir()
        (own / f"mcigen-probe-{os.getpid()}").rmdir()
    except OSError:
        return False
    return os.access(own / "cgroup.procs", os.W_OK)


def _removed_within(seconds: float, directory: Path) -> bool:
    deadline = time.monotonic() + seconds
    while directory.exists() and time.monotonic() < deadline:
        time.sleep(0.02)
    return not directory.exists()
