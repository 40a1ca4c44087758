"""How generated code reaches the runtime: it imports the ``mcigen_runtime`` library,
or, built with ``--vendor-runtime``, the copy of it the package carries as
``_runtime`` (only the modules it uses)."""

from __future__ import annotations

import json
import re
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


_VENDORED_IMPORT = re.compile(
    rb"^from \.{1,2}_runtime(?:\.(\w+))? import ([\w, ]+)", re.MULTILINE
)
_RUNTIME_IMPORT = re.compile(
    r"^\s*from \.(\w*) import (\([\w,\s]+\)|[\w, ]+)", re.MULTILINE
)


def vendored_runtime(files: dict[str, bytes]) -> dict[str, bytes]:
    """``_runtime/<module>.py`` for every runtime module the generated ``files``
    import, and everything those import: a package carries only the runtime it uses
    (one without MCP tools does not need the MCP SDK even to type-check)."""
    wanted = {"__init__"}
    for source in files.values():
        for module, names in _VENDORED_IMPORT.findall(_after_docstring(source)):
            if module:
                wanted.add(module.decode())
            else:
                wanted.update(n.strip() for n in names.decode().split(","))
    if _has_probes(files.get("manifest.json")):
        wanted.add("doctor")  # the package's command line imports it by name
    sources: dict[str, bytes] = {}
    pending = list(wanted)
    while pending:
        module = pending.pop()
        sources[module] = (RUNTIME_DIR / f"{module}.py").read_bytes()
        for imported in _imported_modules(sources[module].decode("utf-8")):
            if imported not in wanted:
                wanted.add(imported)
                pending.append(imported)
    return {f"{VENDORED}/{module}.py": sources[module] for module in sorted(sources)}


def _has_probes(manifest: bytes | None) -> bool:
    if manifest is None:
        return False
    return any(tool.get("probes") for tool in json.loads(manifest)["tools"])


def _imported_modules(source: str) -> Iterator[str]:
    """The runtime modules a runtime module imports (``from .x import ...`` and
    ``from . import x, y``)."""
    for module, names in _RUNTIME_IMPORT.findall(source):
        if module:
            yield module
        else:
            yield from (n.strip() for n in names.strip("()").split(",") if n.strip())


def _after_docstring(source: bytes) -> bytes:
    """A generated module without its docstring: input text can start a line only
    there (every other string from input is a one-line literal or indented)."""
    if not source.startswith(b'"""'):
        return source
    return source.split(b'"""', 2)[-1]
