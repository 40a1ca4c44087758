"""Shared helpers: run the real mcigen command, build packages, import what was built."""

from __future__ import annotations

import fcntl
import importlib
import io
import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager, redirect_stderr, redirect_stdout
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from hypothesis import HealthCheck, settings
from xdist.scheduler import LoadScopeScheduling

# The suite runs beside lint on two cores, and CI machines may be busier still: a
# property's examples are judged on what they find, never on how fast they came.
settings.register_profile(
    "mcigen", deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile("mcigen")

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(autouse=True, scope="session")
def _private_format_cache(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Builds in the tests (and the mcigen processes they start) format into a
    cache of their own, so that no earlier run's cache can hide a change."""
    os.environ["MCIGEN_CACHE_DIR"] = str(tmp_path_factory.mktemp("format-cache"))


MypyStrict = Callable[..., subprocess.CompletedProcess[str]]


@pytest.fixture(scope="session")
def mypy_strict(tmp_path_factory: pytest.TempPathFactory) -> MypyStrict:
    """``mypy_strict(*paths, cwd=..., env=None)``: ``mypy --strict`` with one cache
    for every worker of this run (a cold check reads pydantic and the MCP SDK
    again: ~8 s of CPU against ~0.5 s warm), under a lock, as two mypy processes
    may not write one cache at once."""
    shared = tmp_path_factory.getbasetemp()
    if "PYTEST_XDIST_WORKER" in os.environ:
        shared = shared.parent  # the run's directory, above each worker's own
    cache = shared / "mypy-cache"

    def run(
        *paths: str | Path, cwd: Path, env: dict[str, str] | None = None
    ) -> subprocess.CompletedProcess[str]:
        argv = [sys.executable, "-m", "mypy", "--strict", "--cache-dir", str(cache)]
        with open(shared / "mypy-cache.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            return subprocess.run(
                [*argv, *map(str, paths)],
                cwd=cwd,
                env=env,
                capture_output=True,
                text=True,
                check=False,
            )

    return run


class _ModuleFixturesTogether(LoadScopeScheduling):
    """``-n``'s default scheduling, but the tests of a module that makes a
    module-scoped fixture (a package built, often a server started) go to one
    worker together, so the fixture is made once rather than once on each worker
    (20% of the CPU of the four largest such modules). Property tests stay spread:
    each of their few tests is long. (``--dist loadgroup`` would do this with marks,
    but groups nothing under pytest 9.2: pytest-xdist issue 1386.)"""

    def __init__(self, config: pytest.Config, log: Any) -> None:
        super().__init__(config, log)
        self._together: dict[str, bool] = {}

    def _split_scope(self, nodeid: str) -> str:
        path = nodeid.split("::", 1)[0]
        if path not in self._together:
            source = ROOT / path
            self._together[path] = (
                not path.endswith("_property.py")
                and source.is_file()
                and 'scope="module"' in source.read_text(encoding="utf-8")
            )
        return path if self._together[path] else nodeid


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    if config.getvalue("dist") != "load":
        return None
    return _ModuleFixturesTogether(config, log)


@pytest.fixture(autouse=True, scope="module")
def _mcp_sessions_closed() -> Iterator[None]:
    """The MCP sessions a module's calls opened (in this process: its stdio servers
    are this worker's children), closed after its last test, so that no module
    leaves its servers running for the rest of the worker."""
    yield
    # not imported here: a module that never loaded it opened no session
    calls = sys.modules.get("mcigen_runtime.executors.mcp.calls")
    if calls is not None:
        calls.close_mcp_sessions()


FIGURES = ("mcipy_suite", "timing")
"""Properties a test records for the run's summary: counts and times a reader
should see without opening a report."""


def pytest_terminal_summary(terminalreporter: Any) -> None:
    figures = [
        value
        for report in terminalreporter.stats.get("passed", [])
        for name, value in report.user_properties
        if name in FIGURES
    ]
    if figures:
        terminalreporter.section("figures")
        for figure in figures:
            terminalreporter.write_line(str(figure))


IN_PROCESS_COMMANDS = frozenset({"build", "check", "list", "migrate"})
"""Commands that ``run_mcigen`` runs through the command's own ``main`` in the
test's process: they start no server and install no signal handler, and a
process of their own costs a second of imports per build (migrate's libcst
another half)."""


def run_mcigen(
    *args: str | Path, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    """``mcigen ARGS``: build, check and list in this process (what they print
    captured, as a process's would be), everything else as a real process."""
    argv = [str(arg) for arg in args]
    if cwd is None and argv[0] in IN_PROCESS_COMMANDS:
        return _run_in_process(argv)
    return run_mcigen_process(*argv, cwd=cwd)


def cut_short(argv: list[str | Path], cwd: Path | None = None) -> tuple[int, bytes]:
    """The status and stderr of ``argv`` whose reader closes its stdout before
    anything is written (``... | head``), so every write finds the pipe closed."""
    process = subprocess.Popen(
        argv, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    assert process.stdout is not None and process.stderr is not None
    process.stdout.close()
    stderr = process.stderr.read()
    return process.wait(timeout=30), stderr


def run_mcigen_process(
    *args: str | Path, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    """``mcigen ARGS`` as a real process."""
    return subprocess.run(
        [sys.executable, "-m", "mcigen", *map(str, args)],
        capture_output=True,
        text=True,
        cwd=cwd,
        check=False,
    )


def _run_in_process(argv: list[str]) -> subprocess.CompletedProcess[str]:
    from mcigen.cli import main

    stdout, stderr = io.StringIO(), io.StringIO()
    with redirect_stdout(stdout), redirect_stderr(stderr):
        try:
            code = main(argv)
        except SystemExit as exit:  # argparse's usage errors and --help
            code = (
                exit.code
                if isinstance(exit.code, int)
                else 0 if exit.code is None else 2
            )
    return subprocess.CompletedProcess(
        ["mcigen", *argv], code, stdout.getvalue(), stderr.getvalue()
    )


def without_build_entry(files: dict[str, bytes]) -> dict[str, bytes]:
    """A package's files, its manifest without the ``"build"`` entry (which names
    the input and the build's options)."""
    manifest = json.loads(files["manifest.json"])
    del manifest["build"]
    return {**files, "manifest.json": json.dumps(manifest).encode()}


def leaves_a_trace(directory: Path) -> tuple[str, Path]:
    """A server command that, if it ever ran, would leave the file it returns."""
    trace = directory / "the-server-ran"
    server = directory / "server.sh"
    server.write_text(f"#!/bin/sh\ntouch '{trace}'\n")
    server.chmod(0o755)
    return str(server), trace


def write_schema(
    directory: Path, document: dict[str, Any], name: str = "tools.mci.json"
) -> Path:
    path = directory / name
    path.write_text(json.dumps(document, indent=2), encoding="utf-8")
    return path


def text_tool(name: str, text: str, **fields: Any) -> dict[str, Any]:
    return {"name": name, "execution": {"type": "text", "text": text}, **fields}


def schema_of(*tools: dict[str, Any]) -> dict[str, Any]:
    return {"schemaVersion": "1.0", "tools": list(tools)}


def package_env(directory: Path, **changes: str | None) -> dict[str, str]:
    """The environment of a process that imports a package built in ``directory``:
    the tests' own, with ``directory`` as ``PYTHONPATH``, without ``MCIGEN_*``
    settings (but the tests' build cache, ``MCIGEN_CACHE_DIR``), ``changes`` set
    (None: unset)."""
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith("MCIGEN_") or key == "MCIGEN_CACHE_DIR"
    }
    env["PYTHONPATH"] = str(directory)
    for key, value in changes.items():
        if value is None:
            env.pop(key, None)
        else:
            env[key] = value
    return env


@contextmanager
def built_package(schema: Path, out_dir: Path, *options: str) -> Iterator[ModuleType]:
    """Build ``schema`` into ``out_dir`` with the real command (and ``options``),
    import the package, and forget it (sys.path and sys.modules) afterwards."""
    result = run_mcigen("build", schema, "-o", out_dir, *options)
    assert result.returncode == 0, result.stderr
    with imported_package(out_dir) as package:
        yield package


@contextmanager
def imported_package(out_dir: Path) -> Iterator[ModuleType]:
    """Import the package built at ``out_dir``, and forget it (sys.path and
    sys.modules) afterwards."""
    sys.path.insert(0, str(out_dir.parent))
    try:
        yield importlib.import_module(out_dir.name)
    finally:
        sys.path.remove(str(out_dir.parent))
        for module in [m for m in sys.modules if m.split(".")[0] == out_dir.name]:
            del sys.modules[module]


@pytest.fixture
def build(tmp_path: Path) -> Iterator[Callable[..., ModuleType]]:
    """Build a schema document into a package under tmp_path and import it."""
    imported: list[str] = []
    sys.path.insert(0, str(tmp_path))

    def _build(document: dict[str, Any], name: str = "pkg") -> ModuleType:
        schema = write_schema(tmp_path, document, f"{name}.mci.json")
        result = run_mcigen("build", schema, "-o", tmp_path / name)
        assert result.returncode == 0, result.stderr
        imported.append(name)
        return importlib.import_module(name)

    yield _build
    sys.path.remove(str(tmp_path))
    for name in imported:
        for module in [m for m in sys.modules if m == name or m.startswith(f"{name}.")]:
            del sys.modules[module]
