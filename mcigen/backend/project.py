"""``mcigen build --project``: the package inside a pip-installable project.

    DIR/pyproject.toml   hatchling; name, version, summary from the schema's metadata;
                         exactly the dependencies the package needs, and a ``serve``
                         extra for serving it over MCP
    DIR/README.md        what the package is, how to install and serve it, its tools
    DIR/Dockerfile       an image serving the tools over HTTP as a non-root user
    DIR/<name>/          the package, as a build without --project writes it

Written and guarded as one directory, with the marker of the package it holds.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .. import ir
from ..diagnostics import Diagnostics
from ..marker import MARKER, marker_content
from .distribution import SERVE_EXTRA, Distribution, Locate, distribution
from .dockerfile import DockerText, dockerfile_context
from .jinja import render
from .markdown import Markdown
from .readme import readme_context
from .toml_text import Toml, toml, toml_string


@dataclass(frozen=True)
class Project:
    """A project whose metadata makes a distribution: it wraps the package's files."""

    package: ir.Package
    options: ir.BuildOptions
    dist: Distribution

    def files(self, package_files: dict[str, bytes]) -> dict[str, bytes]:
        """The project's files around ``package_files``, keyed by path in DIR."""
        name = self.options.name
        output = {f"{name}/{path}": content for path, content in package_files.items()}
        output["pyproject.toml"] = render(
            "project/pyproject.toml.jinja", _pyproject_context(self.dist, name), Toml
        ).encode()
        output["README.md"] = render(
            "project/README.md.jinja",
            readme_context(self.package, self.dist, name, self.options.vendor_runtime),
            Markdown,
        ).encode()
        output["Dockerfile"] = render(
            "project/Dockerfile.jinja", dockerfile_context(self.dist, name), DockerText
        ).encode()
        output[MARKER] = marker_content(name)
        return dict(sorted(output.items()))


def plan_project(
    package: ir.Package, options: ir.BuildOptions, locate: Locate
) -> tuple[Project | None, Diagnostics]:
    """The project of ``package``, or None and located errors when the schema's
    metadata cannot make a distribution (checked before the package is emitted)."""
    dist, diagnostics = distribution(package, options, locate)
    return (None if dist is None else Project(package, options, dist)), diagnostics


def _pyproject_context(dist: Distribution, import_name: str) -> dict[str, Any]:
    return {
        "name": toml_string(dist.name),
        "version": toml_string(dist.version),
        "summary": None if dist.summary is None else toml_string(dist.summary),
        "dependencies": [toml_string(need) for need in dist.dependencies],
        "serve_extra": toml(SERVE_EXTRA),
        "serve": [toml_string(need) for need in dist.serve],
        "package": toml_string(import_name),
    }
