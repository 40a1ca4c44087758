"""The modules a generated package runs with: mcigen's and its runtime's, and every
module of the distributions they need, directly or not, as installed here. A
package named like one (``pydantic``, ``httpx``, ``yaml``) would be imported in its
place by everything that imports it, the package's own runtime first.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache
from importlib import metadata

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name

_ROOTS: tuple[tuple[str, frozenset[str]], ...] = (
    ("mcigen", frozenset()),
    ("mcigen-runtime", frozenset({"http", "mcp"})),
)
"""The distributions whose closure a package runs with, each with its extras."""
_OWN_MODULES = {"mcigen": "mcigen", "mcigen_runtime": "mcigen-runtime"}
"""Theirs, which an editable install does not list."""
_MODULE_SUFFIXES = frozenset({".py", ".so", ".pyd"})


@cache
def dependency_modules() -> dict[str, str]:
    """Every top-level module of the closure, with the distribution it comes from."""
    modules = dict(_OWN_MODULES)
    wanted = list(_ROOTS)
    seen: set[tuple[str, frozenset[str]]] = set()
    while wanted:
        name, extras = wanted.pop()
        if (canonicalize_name(name), extras) in seen:
            continue
        seen.add((canonicalize_name(name), extras))
        try:
            distribution = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            continue
        for module in _top_level_modules(distribution):
            modules.setdefault(module, distribution.metadata["Name"] or name)
        wanted += (
            (needed.name, frozenset(needed.extras))
            for needed in _requirements(distribution, extras)
        )
    return modules


def _requirements(
    distribution: metadata.Distribution, extras: frozenset[str]
) -> Iterator[Requirement]:
    """What ``distribution`` with ``extras`` needs on this system."""
    for text in distribution.requires or ():
        try:
            requirement = Requirement(text)
        except InvalidRequirement:
            continue
        marker = requirement.marker
        if marker is None or any(
            marker.evaluate({"extra": extra}) for extra in ("", *sorted(extras))
        ):
            yield requirement


def _top_level_modules(distribution: metadata.Distribution) -> set[str]:
    """The importable names ``distribution`` installs: its top_level.txt, else the
    first part of each of its files' paths."""
    listed = distribution.read_text("top_level.txt")
    if listed:
        return {name for name in listed.split() if name.isidentifier()}
    modules = set()
    for file in distribution.files or ():
        if len(file.parts) > 1:
            modules.add(file.parts[0])
        elif file.suffix in _MODULE_SUFFIXES:  # six.py, _cffi.cpython-311-x86_64.so
            modules.add(file.name.partition(".")[0])
    return {name for name in modules if name.isidentifier()} - {"__pycache__"}
