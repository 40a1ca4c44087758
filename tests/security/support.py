"""Building hostile schemas and looking at what came out, shared by the security tests."""

from __future__ import annotations

import builtins
import contextvars
import importlib
import io
import json
import pkgutil
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager, redirect_stderr, redirect_stdout
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

from ..conftest import built_package, run_mcigen, schema_of, write_schema

CANARY = "MCIGEN_PWNED"
"""The builtins entry an injected payload would set if any of it ever ran."""

PAYLOADS = (
    f'"""\n__import__("builtins").{CANARY} = 1\n"""',
    f"'''\n__import__('builtins').{CANARY} = 1\n'''",
    f'"\n__import__("builtins").{CANARY} = 1\n#',
    f'\\\n__import__("builtins").{CANARY} = 1\n',
    f'\u2028__import__("builtins").{CANARY} = 1\u2028',
    f'\r__import__("builtins").{CANARY} = 1\r',
)
"""Ways out of a docstring, a string literal, a comment or a line, each followed
by code that would leave a trace."""


def build(
    directory: Path,
    document: dict[str, Any],
    file_name: str = "tools.mci.json",
    *options: str,
) -> subprocess.CompletedProcess[str]:
    """``mcigen build`` of ``document`` into ``directory/pkg`` (with ``options``), as
    a real process."""
    schema = directory / file_name
    schema.write_text(json.dumps(document), encoding="utf-8")
    return run_mcigen("build", schema, "-o", directory / "pkg", *options)


def ran_injected_code(directory: Path, package: str = "pkg") -> bool:
    """Import every module of the package in ``directory`` (its tools, its ASGI
    ``server`` among them), then forget them; True if any injected payload ran (the
    import itself must succeed). In this process: importing runs a module's code
    as a fresh interpreter would, without its second of imports."""
    with importable_from(directory):
        try:
            tools = importlib.import_module(f"{package}.tools")
            for module in pkgutil.iter_modules(tools.__path__):
                importlib.import_module(f"{tools.__name__}.{module.name}")
            for extra in ("client", "meta", "models", "server", "__main__"):
                importlib.import_module(f"{package}.{extra}")
        finally:
            _forget(package)
    return builtins.__dict__.pop(CANARY, None) is not None


def package_command(
    directory: Path, *args: str, package: str = "pkg"
) -> subprocess.CompletedProcess[str]:
    """``python -m pkg ARGS`` in ``directory``."""
    return subprocess.run(
        [sys.executable, "-m", package, *args],
        cwd=directory,
        capture_output=True,
        text=True,
        encoding="utf-8",
        check=False,
    )


def package_main(
    directory: Path, *args: str, package: str = "pkg"
) -> subprocess.CompletedProcess[str]:
    """``python -m pkg ARGS`` through the ``main`` of the package's own
    ``__main__`` in this process, imported afresh from ``directory`` and forgotten
    afterwards; what it prints captured, as a process's would be. For tests that
    call many tools: a process of its own costs ~0.4 s of imports per call."""
    stdout, stderr = io.StringIO(), io.StringIO()
    with importable_from(directory):
        try:
            entry = importlib.import_module(f"{package}.__main__")
            with redirect_stdout(stdout), redirect_stderr(stderr):
                try:
                    # in a context of its own: what main sets for a process (a
                    # broker's CALL_SANDBOX) stays out of the tests run after it
                    code = contextvars.copy_context().run(
                        entry.main, package, list(args)
                    )
                except SystemExit as exit:  # argparse's usage errors
                    code = exit.code if isinstance(exit.code, int) else 2
        finally:
            _forget(package)
    return subprocess.CompletedProcess(
        ["python", "-m", package, *args], code, stdout.getvalue(), stderr.getvalue()
    )


def _forget(package: str) -> None:
    for module in [m for m in sys.modules if m.split(".")[0] == package]:
        del sys.modules[module]


BUILDS = settings(
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
"""Hypothesis settings for tests that build a package per example."""


@contextmanager
def importable_from(directory: Path) -> Iterator[Path]:
    """``directory`` on ``sys.path`` while the block runs."""
    sys.path.insert(0, str(directory))
    try:
        yield directory
    finally:
        sys.path.remove(str(directory))


@contextmanager
def every_module_imported(package: str) -> Iterator[ModuleType]:
    """Import ``package`` and every module it generated, check none of the input
    ran, and forget them all afterwards."""
    try:
        imported = importlib.import_module(package)
        registry = importlib.import_module("mcigen_runtime.registry")
        for entry in registry.registry(package).tools:
            importlib.import_module(f"{package}.tools.{entry.group}")
        for module in ("client", "meta", "models", "__main__"):
            importlib.import_module(f"{package}.{module}")
        assert not hasattr(builtins, CANARY)
        yield imported
    finally:
        _forget(package)


def built_from_tools(
    factory: pytest.TempPathFactory,
    name: str,
    tools: list[dict[str, Any]],
    *options: str,
) -> Iterator[ModuleType]:
    """The package ``name`` built (with build ``options``) from a schema of ``tools``
    in a directory of its own, imported while the generator runs: a fixture's body."""
    directory = factory.mktemp(name)
    schema = write_schema(directory, schema_of(*tools), f"{name}.mci.json")
    with built_package(schema, directory / name, *options) as package:
        yield package


@contextmanager
def built_and_imported(
    directory: Path, document: dict[str, Any]
) -> Iterator[ModuleType]:
    """``document`` built into ``directory/pkg`` (see :func:`build`) and imported
    whole (see :func:`every_module_imported`) while the block runs."""
    built = build(directory, document)
    assert built.returncode == 0, built.stderr
    with importable_from(directory), every_module_imported("pkg") as package:
        yield package
