"""The manifest's ``"build"`` entry: what the package was built from and how (the
``mcigen build`` input, format, name and flags), so that whoever holds the package
can tell how to build it again the same way.

Paths are relative to the package directory and flags are listed in one order, so
the entry is the same for the same build wherever it runs.
"""

from __future__ import annotations

from typing import Any

from .. import ir


def build_entry(options: ir.BuildOptions) -> dict[str, Any]:
    """``{"input", "format", "name", "flags"}``: ``flags`` are the ``mcigen build``
    options that change what the build writes, beyond input, output and name."""
    flags: list[str] = []
    if options.whitespace != "compat":
        flags += ["--whitespace", options.whitespace]
    policy = options.policy
    for name, size in policy.limits:
        flags += ["--limit", f"{name}={size}"]
    for name in policy.file_env:
        flags += ["--file-env", name]
    if policy.cli_env != ir.DEFAULT_POLICY.cli_env:
        flags += ["--cli-env", policy.cli_env]
    if policy.confine_cli:
        flags.append("--confine-cli")
    if options.vendor_runtime != options.project:  # a project vendors by default
        flags.append(
            "--vendor-runtime" if options.vendor_runtime else "--no-vendor-runtime"
        )
    if options.project:
        flags.append("--project")
    return {
        "input": options.source_path,
        "format": options.source_format,
        "name": options.name,
        "flags": flags,
    }
