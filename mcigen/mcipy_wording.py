"""mci-py's words for a schema it refuses, so that ``MCIClient``'s error starts the
way mci-py's does and code matching on those words keeps working.

mci-py checks a schema in a fixed order and stops at the first problem; this
module runs its structural checks, in that order, over the file as read, only
after mcigen refused the schema. Past those, mci-py validates with pydantic and
words each problem its own way: there mcigen's first error follows mci-py's
heading for the place it is in (a tool's execution, or the schema as a whole).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from itertools import chain
from pathlib import Path
from typing import Any

import yaml

from .diagnostics import Diagnostic
from .ir import DEFAULT_LIBRARY_DIR

_EXECUTION_POINTER = re.compile(r"^/tools/(\d+)/execution(/|$)")
_EXTENSIONS = (".json", ".yaml", ".yml")
_SCHEMA_VERSIONS = ("1.0",)
_EXECUTION_TYPES = ("http", "cli", "file", "text", "mcp")
_TOOLSET_SUFFIXES = (".mci.json", ".mci.yaml", ".mci.yml")


def load_failure(path: str, first_error: Diagnostic | None) -> str:
    """The first line of mci-py's ``MCIClientError`` for a schema it cannot load;
    ``first_error`` is mcigen's first error, if it had one."""
    return f"Failed to load schema from {path}: {_complaint(Path(path), first_error)}"


def _complaint(path: Path, first_error: Diagnostic | None) -> str:
    if not path.exists():
        return f"Schema file not found: {path}"
    if not path.is_file():
        return f"Path is not a file: {path}"
    extension = path.suffix.lower()
    if extension not in _EXTENSIONS:
        return (
            f"Unsupported file extension '{extension}'. "
            f"Supported extensions: {', '.join(_EXTENSIONS)}"
        )
    try:
        with path.open(encoding="utf-8") as text:
            document = json.load(text) if extension == ".json" else yaml.safe_load(text)
    except json.JSONDecodeError as error:
        return f"Invalid JSON in file {path}: {error}"
    except yaml.YAMLError as error:
        return f"Invalid YAML in file {path}: {error}"
    except (OSError, UnicodeDecodeError) as error:
        return f"Failed to read file {path}: {error}"
    # mci-py's complaints in its order, read up to the first: each check runs
    # only when those before it found nothing, and may count on that.
    complaints = chain(
        _top_level(document), _tools(document), _toolsets(document, path.parent)
    )
    found = next(complaints, None)
    return (
        found if found is not None else _validation_failure(document, path, first_error)
    )


def _validation_failure(
    document: dict[str, Any], path: Path, first_error: Diagnostic | None
) -> str:
    """mci-py's heading for a problem its pydantic models find, over mcigen's words."""
    if first_error is None:
        return "Schema validation failed"
    message = first_error.message
    place = first_error.location
    execution = _EXECUTION_POINTER.match(place.pointer)
    if execution is not None and Path(place.file).resolve() == path.resolve():
        tool = document["tools"][int(execution.group(1))]
        kind = tool["execution"]["type"]
        return (
            f"Tool '{tool['name']}' has invalid execution config: "
            f"Invalid {kind} execution config: {message}"
        )
    return f"Schema validation failed: {message}"


def _top_level(document: Any) -> Iterator[str]:
    if not isinstance(document, dict):
        yield f"Expected dictionary, got {type(document).__name__}"
        return
    if "schemaVersion" not in document:
        yield "Missing required field 'schemaVersion'"
    if document.get("tools") is None and document.get("toolsets") is None:
        yield "Either 'tools' or 'toolsets' field must be provided"
    version = _choice(
        document["schemaVersion"],
        ("Schema version", "Unsupported schema version", "Supported versions"),
        _SCHEMA_VERSIONS,
    )
    if version is not None:
        yield version
    tools = document.get("tools")
    if tools is not None and not isinstance(tools, list):
        yield f"Field 'tools' must be a list, got {type(tools).__name__}"


def _tools(document: dict[str, Any]) -> Iterator[str]:
    for index, tool in enumerate(document.get("tools") or ()):
        if not isinstance(tool, dict):
            yield f"Tool at index {index} must be a dictionary, got {type(tool).__name__}"
        elif "name" not in tool:
            yield f"Tool at index {index} missing required field 'name'"
        elif "execution" not in tool:
            yield (
                f"Tool at index {index} ('{tool['name']}') missing required field "
                "'execution'"
            )
        elif not isinstance(tool["execution"], dict):
            yield (
                f"Tool '{tool['name']}' execution must be a dictionary, got "
                f"{type(tool['execution']).__name__}"
            )
        else:
            problem = _execution(tool["execution"])
            if problem is not None:
                yield f"Tool '{tool['name']}' has invalid execution config: {problem}"


def _execution(execution: dict[str, Any]) -> str | None:
    if "type" not in execution:
        return "Missing required field 'type' in execution config"
    return _choice(
        execution["type"],
        ("Execution type", "Invalid execution type", "Valid types"),
        _EXECUTION_TYPES,
    )


def _choice(
    value: Any, words: tuple[str, str, str], choices: tuple[str, ...]
) -> str | None:
    """mci-py's complaint about a value that must be one of some strings, in
    ``words``: what it is, what a wrong one is called, what the list is called."""
    subject, wrong, listed = words
    if not isinstance(value, str):
        return f"{subject} must be a string, got {type(value).__name__}"
    if value not in choices:
        return f"{wrong} '{value}'. {listed}: {', '.join(choices)}"
    return None


def _toolsets(document: dict[str, Any], base: Path) -> Iterator[str]:
    names = [_toolset_name(ref) for ref in document.get("toolsets") or ()]
    if not names:
        return
    library = base / str(document.get("libraryDir", DEFAULT_LIBRARY_DIR))
    if not library.exists():
        yield f"Library directory not found: {library}"
    elif not library.is_dir():
        yield f"Library path is not a directory: {library}"
    for name in names:
        if not _toolset_found(library, name):
            yield (
                f"Toolset not found: {name}. Looked for directory, file, or file with "
                f".mci.json/.mci.yaml/.mci.yml extension in {library}"
            )


def _toolset_name(ref: Any) -> str:
    return str(ref.get("name") if isinstance(ref, dict) else ref)


def _toolset_found(library: Path, name: str) -> bool:
    """A directory, a file, or a file with a toolset suffix, as mci-py looks."""
    candidates = [library / f"{name}{suffix}" for suffix in _TOOLSET_SUFFIXES]
    return (library / name).exists() or any(path.is_file() for path in candidates)
