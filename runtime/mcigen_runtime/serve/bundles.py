"""Ahma's tool bundles: the tool files Ahma ships (by their ``name``), whose tools
its server hides from ``tools/list`` until a client reveals their bundle with
``activate_tools`` (Ahma's "progressive disclosure").

Plain data: the compiler reads it to mark an MTDF tool's bundle in the manifest,
the server to offer ``activate_tools`` (see :mod:`.disclosure`).
"""

from __future__ import annotations

from dataclasses import dataclass

ACTIVATE_TOOLS = "activate_tools"
"""The tool that reveals a bundle."""


@dataclass(frozen=True)
class Bundle:
    name: str
    """What ``activate_tools`` calls it (``rust``)."""
    config: str
    """The ``name`` of its tool file (``cargo``)."""
    description: str
    """One line for ``activate_tools list``."""
    hint: str
    """When a model wants it, for the description of ``activate_tools``."""


BUNDLES: tuple[Bundle, ...] = (
    Bundle(
        "rust",
        "cargo",
        "Rust's cargo: build, check, test, clippy, fmt, doc, audit, nextest",
        "To build, test, lint or format Rust code, reveal 'rust' (cargo).",
    ),
    Bundle(
        "fileutils",
        "file-tools",
        "Files: list, copy, move, remove, search, find, compare",
        "To list, copy, move, remove, search or compare files, reveal 'fileutils'.",
    ),
    Bundle(
        "github",
        "gh",
        "GitHub's gh: pull requests, Actions runs, caches, workflows",
        "To work with pull requests or GitHub Actions, reveal 'github' (gh).",
    ),
    Bundle(
        "git",
        "git",
        "git: status, add, commit, push, log",
        "To see changes, commit, push or read the history, reveal 'git'.",
    ),
    Bundle(
        "kotlin",
        "kotlin",
        "Gradle wrapper for Kotlin and Android: build, test, lint, assemble, install",
        "To build, test or lint a Kotlin, Android or Gradle project, reveal 'kotlin'.",
    ),
    Bundle(
        "python",
        "python",
        "Python: scripts, inline code, modules",
        "To run Python scripts, code or modules, reveal 'python'.",
    ),
    Bundle(
        "simplify",
        "simplify",
        "Code complexity report: the hotspots and how to simplify them",
        "To find complex code and how to simplify it, reveal 'simplify'.",
    ),
)
"""In Ahma's order (the order ``activate_tools`` lists them)."""

BUNDLE_OF_CONFIG = {bundle.config: bundle.name for bundle in BUNDLES}
"""A tool file's ``name`` → its bundle's."""
