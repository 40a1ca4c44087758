"""What a project's ``pyproject.toml`` declares: the distribution's name, version and
summary, from the schema's metadata, and exactly the dependencies its tools need.

A package imports the ``mcigen-runtime`` library with the extras its tools use
(``http`` for http tools, ``mcp`` for MCP tools); one built with ``--vendor-runtime``
carries the runtime and needs what the runtime needs, read from the installed
runtime's own metadata. Serving over MCP needs the MCP SDK whatever the tools are:
the ``serve`` extra.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from importlib import metadata

import mcigen_runtime
from packaging.requirements import Requirement
from packaging.version import InvalidVersion, Version

from .. import ir
from ..diagnostics import Diagnostics, Location, quoted

RUNTIME = "mcigen-runtime"
SERVE_EXTRA = "serve"
DEFAULT_VERSION = "0.0.0"

_RUNTIME_EXTRAS = {"http": "http", "mcp": "mcp"}
"""The runtime extra each kind of tool needs (the others need none)."""
_SERVING = "mcp"
"""The runtime extra that serving over MCP needs."""

Locate = Callable[[str], Location]
"""Where the node at a JSON pointer of the schema was written."""


@dataclass(frozen=True)
class Distribution:
    name: str
    """Normalised (PEP 503): lower case, runs of other characters one ``-``."""
    version: str
    summary: str | None
    """The first line of the metadata's description."""
    dependencies: tuple[str, ...]
    serve: tuple[str, ...]
    """What ``NAME[serve]`` adds: what ``python -m PACKAGE serve`` needs."""


def distribution(
    package: ir.Package, options: ir.BuildOptions, locate: Locate
) -> tuple[Distribution | None, Diagnostics]:
    """The distribution of ``package``; None and located errors when the metadata
    cannot make one."""
    diagnostics = Diagnostics()
    meta = package.schema.metadata
    name = _distribution_name(meta.get("name"), options.name)
    if not name:
        diagnostics.error(
            locate("/metadata/name" if "name" in meta else "/metadata"),
            f"no distribution name can be made of metadata.name or of the import "
            f"name {quoted(options.name)}: give metadata.name ASCII letters or digits",
        )
    version = _version(meta.get("version"), locate, diagnostics)
    if name is None or version is None:
        return None, diagnostics
    extras = runtime_extras(package)
    if options.vendor_runtime:
        dependencies = _vendored_needs(extras, with_base=True)
        serve = _vendored_needs([_SERVING], with_base=False)
    else:
        dependencies = (runtime_requirement(extras),)
        serve = (runtime_requirement([_SERVING]),)
    return (
        Distribution(
            name=name,
            version=version,
            summary=_summary(meta.get("description")),
            dependencies=dependencies,
            serve=serve,
        ),
        diagnostics,
    )


def _distribution_name(title: object, import_name: str) -> str | None:
    """``metadata.name`` as a distribution name, else the import name as one."""
    for candidate in (title, import_name):
        if isinstance(candidate, str):
            plain = unicodedata.normalize("NFKD", candidate).encode("ascii", "ignore")
            name = re.sub(r"[^a-z0-9]+", "-", plain.decode().lower()).strip("-")
            if name:
                return name
    return None


def _version(value: object, locate: Locate, diagnostics: Diagnostics) -> str | None:
    if not isinstance(value, str):
        return DEFAULT_VERSION
    try:
        return str(Version(value))
    except InvalidVersion:
        diagnostics.error(
            locate("/metadata/version"),
            f"metadata.version {quoted(value)} is not a version pip can install "
            "(PEP 440, such as 1.0.0 or 2.1rc1); --project needs one",
        )
        return None


def _summary(description: object) -> str | None:
    if not isinstance(description, str):
        return None
    lines = description.strip().splitlines()
    return lines[0].strip() if lines else None


def runtime_extras(package: ir.Package) -> list[str]:
    """The extras of the runtime that the package's tools use."""
    kinds = {ir.execution_kind(planned.tool.execution) for planned in package.tools}
    return sorted({_RUNTIME_EXTRAS[kind] for kind in kinds if kind in _RUNTIME_EXTRAS})


def runtime_requirement(extras: list[str]) -> str:
    """The ``mcigen-runtime`` the generated code runs on, with ``extras``."""
    with_extras = f"[{','.join(extras)}]" if extras else ""
    specifier = mcigen_runtime.requirement(mcigen_runtime.__version__)
    return f"{RUNTIME}{with_extras}{specifier}"


def _vendored_needs(extras: list[str], with_base: bool) -> tuple[str, ...]:
    """What the runtime itself requires for ``extras`` (and ``with_base``, what it
    requires whatever the extras), as its metadata says."""
    needs: list[str] = []
    for line in metadata.requires(RUNTIME) or []:
        requirement = Requirement(line)
        marker = requirement.marker
        if marker is None or "extra" not in str(marker):
            if with_base:
                needs.append(str(requirement))
            continue
        extra = _only_extra(requirement)
        if extra in extras:
            requirement.marker = None
            needs.append(str(requirement))
    return tuple(needs)


def _only_extra(requirement: Requirement) -> str:
    """The extra a requirement of the runtime belongs to; a marker that says more
    than ``extra == "NAME"`` cannot be carried into another distribution."""
    found = re.fullmatch(r'extra == "([\w.-]+)"', str(requirement.marker))
    if found is None:
        raise ValueError(
            f"{RUNTIME} requires {quoted(requirement)}: mcigen cannot carry that marker "
            "into a project with --vendor-runtime"
        )
    return found.group(1)
