"""Every shell and Python example of the documentation runs as written.

The ``sh``, ``bash`` and ``python`` blocks of README.md and of every page in
docs/ run in order, a page's blocks in one temporary directory (a block may use
what an earlier block of its page made), each where the shell block before it
left off (a ``cd`` holds for the blocks after it, as in the shell of a reader
who pastes them one after another), with this environment's Python and
mcigen first on PATH, as they run for a reader in the checkout with ``.venv``
activated. The directory holds what the pages assume: a copy of examples/ and
``greetings``, the package ``make demo`` builds from examples/greetings.mci.yaml
(its golden copy). Shell blocks run under ``bash -e``, Python blocks as
``python -c``; a block fails the test when it exits non-zero.

A block that cannot run here says so on the line before it, in a comment the site
does not show::

    <!-- not-run: it starts a server that runs until it is stopped -->

(a server that runs until stopped, the network, an API key, Docker, a program
this machine lacks). The README's first block, ``make demo`` and ``make test``, is
the project's own entry point and this suite is part of it: it is not run here.

A client block left out because it needs a server of its page running (the
``curl`` of "Serving over MCP" and of the broker's API) runs against that server,
started as the page's own line starts it, on a free port in place of the page's.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from .mcp_servers import free_port, listening

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
RUNNABLE = {"sh": "shell", "bash": "shell", "python": "python"}
_FENCE = re.compile(r"^```(\w*)[^\n]*\n(.*?)^```[ \t]*$", re.MULTILINE | re.DOTALL)
_NOT_RUN = re.compile(r"<!--\s*not-run:\s*((?:(?!-->).)*?)\s*-->\s*\Z", re.DOTALL)
GREETINGS = ROOT / "golden" / "greetings"
"""What ``mcigen build examples/greetings.mci.yaml -o greetings`` writes
(tests/test_golden.py keeps it so)."""
BLOCK_TIMEOUT = 60


@dataclass(frozen=True)
class Block:
    page: Path
    line: int
    kind: str
    code: str
    not_run: str | None
    """The reason given in ``<!-- not-run: reason -->``, or None: the block runs."""

    def where(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"


def blocks(page: Path) -> list[Block]:
    """The runnable blocks of ``page``, in order."""
    text = page.read_text("utf-8")
    found = []
    for match in _FENCE.finditer(text):
        kind = RUNNABLE.get(match.group(1))
        if kind is None:
            continue
        marker = _NOT_RUN.search(text, 0, match.start())
        line = text.count("\n", 0, match.start()) + 1
        found.append(
            Block(page, line, kind, match.group(2), marker and marker.group(1))
        )
    if page.name == "README.md":
        found = found[1:]  # make demo, make test: see the module's docstring
    return found


def _environment() -> dict[str, str]:
    environment = dict(os.environ)
    bin_dir = str(Path(sys.executable).parent)
    environment["PATH"] = os.pathsep.join([bin_dir, environment.get("PATH", "")])
    environment.pop("PYTHONPATH", None)
    return environment


def _run(
    block: Block, directory: Path, environment: dict[str, str], left_in: Path
) -> Path:
    """Run ``block`` in ``directory``; the directory it leaves its reader in (a
    shell block writes it to the file ``left_in`` as it exits)."""
    if block.kind == "shell":
        # the trap on the block's first line: bash's line numbers stay the block's
        left = shlex.quote(f"pwd > {shlex.quote(str(left_in))}")
        argv = ["bash", "-e", "-c", f"trap {left} EXIT; {block.code}"]
    else:
        argv = [sys.executable, "-c", block.code]
    # a session of its own: a block that does not end is stopped with all it started
    with subprocess.Popen(
        argv,
        cwd=directory,
        env=environment,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    ) as process:
        try:
            stdout, stderr = process.communicate(timeout=BLOCK_TIMEOUT)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            stdout, stderr = process.communicate()
            pytest.fail(
                f"the example at {block.where()} did not end in {BLOCK_TIMEOUT} s "
                f"(if it starts a server, mark it not-run):\n{block.code}"
            )
    assert process.returncode == 0, (
        f"the example at {block.where()} exited with {process.returncode}:\n"
        f"{block.code}\n--- stdout\n{stdout}\n--- stderr\n{stderr}"
    )
    if block.kind == "shell":
        return Path(left_in.read_text("utf-8").rstrip("\n"))
    return directory


def _runnable(page: Path) -> list[Block]:
    return [block for block in blocks(page) if block.not_run is None]


WITH_EXAMPLES = [page for page in PAGES if _runnable(page)]
"""The pages with a block to run (a page of prose and configs has none)."""


@pytest.mark.parametrize(
    "page",
    WITH_EXAMPLES,
    ids=[page.relative_to(ROOT).as_posix() for page in WITH_EXAMPLES],
)
def test_the_examples_of_the_page_run(page: Path, tmp_path: Path) -> None:
    runnable = _runnable(page)
    directory = tmp_path / "reader"
    shutil.copytree(ROOT / "examples", directory / "examples")
    shutil.copytree(GREETINGS, directory / "greetings")
    environment = _environment()
    for block in runnable:
        directory = _run(block, directory, environment, tmp_path / "left_in")


def test_every_block_left_out_says_why() -> None:
    unexplained = [
        block.where()
        for page in PAGES
        for block in blocks(page)
        if block.not_run is not None and not block.not_run
    ]
    assert unexplained == []


@dataclass(frozen=True)
class Served:
    page: str
    server: str
    """The start of the page's line that starts the server."""
    client: str
    """Text of the block of clients that talk to it."""
    port: int
    """The port both name."""
    answer: str
    """What the clients print (part of it)."""


SERVED = [
    Served(
        "docs/serving.md",
        "python -m greetings serve --http 127.0.0.1:8765 --secret s3cret",
        "curl -sNX POST http://127.0.0.1:8765/mcp",
        8765,
        '"greet"\n"farewell"\n',
    ),
    Served(
        "docs/broker.md",
        "MCIGEN_SECRET=s3cret python -m greetings broker 0.0.0.0:8100",
        "curl -X POST http://127.0.0.1:8100/meta_tree",
        8100,
        '"text":"[en] Hello, Ada! Welcome to the team."',
    ),
]


@pytest.mark.skipif(
    shutil.which("curl") is None or shutil.which("jq") is None,
    reason="the clients are curl and jq",
)
@pytest.mark.parametrize("served", SERVED, ids=[served.page for served in SERVED])
def test_the_client_examples_answer_as_the_server_their_page_starts(
    served: Served, tmp_path: Path
) -> None:
    found = blocks(ROOT / served.page)
    (server,) = [
        line
        for block in found
        for line in block.code.splitlines()
        if line.startswith(served.server)
    ]
    (client,) = [block for block in found if served.client in block.code]
    port = str(free_port())
    shutil.copytree(GREETINGS, tmp_path / "greetings")
    environment = _environment()
    argv = ["bash", "-c", server.replace(str(served.port), port)]
    with listening(argv, int(port), cwd=tmp_path, env=environment):
        done = subprocess.run(
            ["bash", "-e", "-o", "pipefail", "-c"]
            + [client.code.replace(str(served.port), port)],
            cwd=tmp_path,
            env=environment,
            capture_output=True,
            text=True,
            timeout=BLOCK_TIMEOUT,
            check=False,
        )
    assert done.returncode == 0, done.stderr
    assert served.answer in done.stdout, done.stdout
