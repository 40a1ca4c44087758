"""How generated code reaches the runtime: it imports the ``mcigen_runtime`` library,
or, built with ``--vendor-runtime``, the copy of it the package carries as
``_runtime`` (only the modules it uses)."""

from __future__ import annotations

import ast
import json
from collections.abc import Iterable, Iterator
from pathlib import Path

import mcigen_runtime

LIBRARY = "mcigen_runtime"
VENDORED = "_runtime"
RUNTIME_DIR = Path(mcigen_runtime.__file__).resolve().parent


def runtime_package(vendored: bool, dots: str = ".") -> str:
    """What a module ``dots`` deep in the package imports the runtime as."""
    return f"{dots}{VENDORED}" if vendored else LIBRARY


def linked_imports(
    imports: Iterable[tuple[str, str]], vendored: bool, dots: str
) -> set[tuple[str, str]]:
    """``imports`` (runtime modules named ``mcigen_runtime.x``) as a module ``dots``
    deep in the package writes them."""
    prefix = LIBRARY + "."
    return {
        (
            (
                runtime_package(vendored, dots) + module[len(LIBRARY) :]
                if module.startswith(prefix)
                else module
            ),
            name,
        )
        for module, name in imports
    }


def vendored_runtime(files: dict[str, bytes]) -> dict[str, bytes]:
    """``_runtime/...`` for every runtime module the generated ``files`` import, and
    everything those import, read from the import statements themselves: a package
    carries only the runtime it uses (one without MCP tools does not need the MCP SDK
    even to type-check)."""
    wanted: set[str] = set()
    for path, source in files.items():
        if path.endswith(".py"):
            wanted.update(_vendored_imports(ast.parse(source)))
    if _has_probes(files.get("manifest.json")):
        wanted.add("app.doctor")  # the package's command line imports it by name
    pending = sorted(_with_packages(wanted))
    found: dict[str, Path] = {}
    while pending:
        module = pending.pop()
        found[module] = _source_of(module)
        package = module if found[module].name == "__init__.py" else _parent(module)
        imported = _runtime_imports(ast.parse(found[module].read_bytes()), package)
        pending.extend(_with_packages(set(imported)) - found.keys() - set(pending))
    return {
        f"{VENDORED}/{path.relative_to(RUNTIME_DIR).as_posix()}": path.read_bytes()
        for path in sorted(found.values())
    }


def _has_probes(manifest: bytes | None) -> bool:
    if manifest is None:
        return False
    return any(tool.get("probes") for tool in json.loads(manifest)["tools"])


def _vendored_imports(tree: ast.Module) -> Iterator[str]:
    """The runtime modules a generated module imports (``from .._runtime.x import
    y``), named from the runtime's root."""
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level and node.module:
            head, _, module = node.module.partition(".")
            if head == VENDORED:
                yield from _imported(module, node.names)


def _runtime_imports(tree: ast.Module, package: str) -> Iterator[str]:
    """The runtime modules a runtime module in ``package`` imports: its relative
    imports at any depth (those made on first use count too)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level:
            parts = package.split(".") if package else []
            base = parts[: len(parts) - node.level + 1]
            module = ".".join([*base, *filter(None, [node.module])])
            yield from _imported(module, node.names)


def _imported(module: str, names: Iterable[ast.alias]) -> Iterator[str]:
    """``module``, and each name imported from it that is a module of its own."""
    yield module
    for alias in names:
        submodule = f"{module}.{alias.name}" if module else alias.name
        if _source_of(submodule).is_file():
            yield submodule


def _with_packages(modules: set[str]) -> set[str]:
    """``modules`` and the packages holding them: importing a module runs the
    ``__init__`` of each, the root's (named ``""``) included."""
    packages = {""}
    for module in modules:
        parts = module.split(".")
        packages.update(".".join(parts[:depth]) for depth in range(1, len(parts)))
    return packages | modules


def _parent(module: str) -> str:
    return module.rpartition(".")[0]


def _source_of(module: str) -> Path:
    """The file of runtime ``module`` (which may not exist)."""
    base = RUNTIME_DIR.joinpath(*module.split(".")) if module else RUNTIME_DIR
    package = base / "__init__.py"
    return package if package.is_file() else base.with_suffix(".py")
