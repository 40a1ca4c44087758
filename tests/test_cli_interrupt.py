"""A sync call interrupted by Ctrl-C at any moment leaves no process of its
command running: also when SIGINT lands while the command starts, between the
kernel creating it and the call holding it (COMPATIBILITY row 67 is the whole
program's side of this).

Real SIGINTs, sent to this process by a timer thread at a spread of moments over
the start of a real ``sleep``; after each, no child of this process is still running it.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

from .conftest import built_package, schema_of, write_schema

pytestmark = pytest.mark.skipif(
    sys.platform != "linux", reason="reads a process's children from /proc"
)

SECONDS = "2917"
"""How long ``nap`` sleeps: an argument of its own, by which its processes are told
from the other children a test process may have (orphans of other tests' commands
adopted by it as a subreaper, say)."""
TIMEOUT_S = 20
NAP = {
    "name": "nap",
    "execution": {
        "type": "cli",
        "command": "sleep",
        "args": [SECONDS],
        "timeout_ms": TIMEOUT_S * 1000,
    },
}
BLINK = {"name": "blink", "execution": {"type": "cli", "command": "true"}}
ROUNDS = 100
SPREAD_S = 0.006
"""The moments of the SIGINTs: from the call's beginning to this much later (a
start takes 1-3 ms here)."""


@pytest.fixture(scope="module")
def package(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    directory = tmp_path_factory.mktemp("interrupt")
    schema = write_schema(directory, schema_of(NAP, BLINK), "interrupt.mci.json")
    with built_package(schema, directory / "interruptpkg") as built:
        yield built


def _live_naps(pid: int | None = None) -> list[int]:
    """The children of the process ``pid`` (this one's by default) running
    ``nap``'s command (not exited: zombies are not counted)."""
    naps = []
    command = f"sleep\0{SECONDS}\0".encode()
    for task in Path(f"/proc/{pid or os.getpid()}/task").iterdir():
        try:
            children = (task / "children").read_text().split()
        except FileNotFoundError:  # a thread (another test's) ended meanwhile
            continue
        for child in children:
            try:
                stat = Path(f"/proc/{child}/stat").read_bytes()
                cmdline = Path(f"/proc/{child}/cmdline").read_bytes()
            except OSError:
                continue
            state = stat.rpartition(b")")[2].split()[0]
            if cmdline == command and state not in (b"Z", b"X"):
                naps.append(int(child))
    return naps


def _interrupted(package: ModuleType, after: float) -> None:
    """Call ``nap``, which only ends by the SIGINT sent ``after`` seconds on."""
    timer = threading.Timer(after, os.kill, (os.getpid(), signal.SIGINT))
    try:
        timer.start()
        package.nap()
    except KeyboardInterrupt:
        pass
    timer.join()


def test_ctrl_c_at_any_moment_of_the_start_leaves_no_command(
    package: ModuleType,
) -> None:
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    assert _live_naps() == []
    _interrupted(package, 1.0)  # what a first call builds once is built
    left = []
    for round_ in range(ROUNDS):
        _interrupted(package, SPREAD_S * round_ / ROUNDS)
        found = _live_naps()
        left += found
        for pid in found:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
    assert left == []


def test_ctrl_c_taken_by_another_thread_ends_the_waiting_call(
    package: ModuleType,
) -> None:
    """The kernel hands a process's SIGINT to any thread that does not block it
    (to another one while the main thread blocks every signal to start a
    command, say), and CPython's handler then only takes note: the main thread,
    waiting in ``poll`` for the command, must still be woken, not at the
    command's timeout."""
    assert interrupted_by_another_thread_within(package) < TIMEOUT_S / 2
    assert _live_naps() == []


FORKS = 4
REPO = Path(__file__).parent.parent


def test_ctrl_c_taken_by_another_thread_ends_the_wait_of_a_forked_process(
    package: ModuleType,
) -> None:
    """A process that has waited for a command once, then forks, and whose
    children wait too: each process's wait must be woken by its own signals. All
    shared the one pipe the signals' numbers are written to, so another process
    could read the number first, and the call waited for its command's timeout
    (rounds of four children here: nine in twelve did)."""
    assert package.__file__ is not None
    directory = Path(package.__file__).parent.parent
    script = (
        "import importlib, sys\n"
        "from tests.test_cli_interrupt import interrupted_in_forked_waits\n"
        f"package = importlib.import_module({package.__name__!r})\n"
        f"for _ in range(3): print(interrupted_in_forked_waits(package, {FORKS}))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        env={**os.environ, "PYTHONPATH": f"{directory}{os.pathsep}{REPO}"},
        capture_output=True,
        text=True,
        timeout=4 * TIMEOUT_S,
    )
    assert done.returncode == 0, done.stderr
    waits = [float(seconds) for seconds in done.stdout.split()]
    assert max(waits) < TIMEOUT_S / 2, waits


def interrupted_in_forked_waits(package: ModuleType, forks: int) -> float:
    """How long a call of ``nap`` in this process waits for a SIGINT another of its
    threads takes, with ``forks`` children forked after a first call, each
    waiting for its own ``nap``."""
    package.blink()
    children = []
    for _ in range(forks):
        child = os.fork()
        if child == 0:
            try:
                package.nap()
            finally:
                os._exit(0)
        children.append(child)
    for child in children:
        while not (_live_naps(child) and _sleeping(child, child)):
            time.sleep(0.001)
    try:
        return interrupted_by_another_thread_within(package)
    finally:
        for child in children:
            os.kill(child, signal.SIGINT)
            os.waitpid(child, 0)


def interrupted_by_another_thread_within(package: ModuleType) -> float:
    """How long a call of ``nap`` waits for a SIGINT another thread takes, sent
    once it waits."""
    main = threading.main_thread().native_id
    returned = threading.Event()

    def interrupt_once_waiting() -> None:
        while not (_live_naps() and _sleeping(main)):
            if returned.wait(0.001):
                return
        signal.pthread_kill(threading.get_ident(), signal.SIGINT)

    helper = threading.Thread(target=interrupt_once_waiting)
    began = time.monotonic()
    try:
        with pytest.raises(KeyboardInterrupt):
            helper.start()
            package.nap()
    finally:
        returned.set()
        helper.join()
    return time.monotonic() - began


def _sleeping(thread: int | None, pid: int | None = None) -> bool:
    status = Path(f"/proc/{pid or 'self'}/task/{thread}/stat").read_bytes()
    return status.rpartition(b")")[2].split()[0] == b"S"
