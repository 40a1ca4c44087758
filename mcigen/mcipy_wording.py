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
from pathlib import Path
from typing import Any

import yaml

from .diagnostics import Diagnostic
from .ir import DEFAULT_LIBRARY_DIR

_EXECUTION_POINTER = re.compile(r"^/tools/(\d+)/execution(/|$)")
_SERVER_POINTER = re.compile(r"^/mcp_servers/([^/]+)$")
_EXTENSIONS = (".json", ".yaml", ".yml")
_SCHEMA_VERSIONS = ("1.0",)
_EXECUTION_TYPES = ("http", "cli", "file", "text", "mcp")
_TOOLSET_SUFFIXES = (".mci.json", ".mci.yaml", ".mci.yml")
_FILTERS = ("only", "except", "tags", "withoutTags")


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
        document = _read(path, "file")
    except _Unreadable as problem:
        return str(problem)
    # mci-py's complaints in its order, read up to the first: each check runs
    # only when those before it found nothing, and may count on that. Its
    # pydantic models check the schema before any toolset is read, and the
    # toolsets are loaded before any MCP server is reached.
    found = next(_top_level(document), None) or next(
        _tools(document.get("tools") or []), None
    )
    if found is None and not _found_later(path, first_error):
        return _validation_failure(document, path, first_error)
    found = found or next(_toolsets(document, path.parent), None)
    return found or _validation_failure(document, path, first_error)


def _found_later(path: Path, first_error: Diagnostic | None) -> bool:
    """Whether mcigen's first error is one mci-py finds after its pydantic
    models passed the schema: in a toolset or its reference, or at an MCP server."""
    if first_error is None:
        return True
    place = first_error.location
    return (
        Path(place.file).resolve() != path.resolve()
        or place.pointer.startswith("/toolsets/")
        or _SERVER_POINTER.match(place.pointer) is not None
    )


def _validation_failure(
    document: dict[str, Any], path: Path, first_error: Diagnostic | None
) -> str:
    """mci-py's heading for a problem its pydantic models find, over mcigen's words."""
    if first_error is None:
        return "Schema validation failed"
    message = first_error.message
    place = first_error.location
    in_schema = Path(place.file).resolve() == path.resolve()
    server = _SERVER_POINTER.match(place.pointer)
    if server is not None and in_schema:
        name = server.group(1).replace("~1", "/").replace("~0", "~")
        return (
            f"Failed to fetch tools from MCP server '{name}': Failed to fetch from "
            f"MCP server '{name}': Failed to connect to MCP server '{name}': {message}"
        )
    execution = _EXECUTION_POINTER.match(place.pointer)
    if execution is not None and in_schema:
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
    version = _version_problem(document["schemaVersion"])
    if version is not None:
        yield version
    tools = document.get("tools")
    if tools is not None and not isinstance(tools, list):
        yield f"Field 'tools' must be a list, got {type(tools).__name__}"


def _tools(tools: list[Any]) -> Iterator[str]:
    for index, tool in enumerate(tools):
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


def _version_problem(value: Any) -> str | None:
    """mci-py's complaint about a schema's or a toolset file's ``schemaVersion``."""
    return _choice(
        value,
        ("Schema version", "Unsupported schema version", "Supported versions"),
        _SCHEMA_VERSIONS,
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
    """mci-py loads each toolset in turn: found, read, checked, then filtered."""
    refs = document.get("toolsets") or ()
    if not refs:
        return
    library = base / str(document.get("libraryDir", DEFAULT_LIBRARY_DIR))
    if not library.exists():
        yield f"Library directory not found: {library}"
    elif not library.is_dir():
        yield f"Library path is not a directory: {library}"
    for ref in refs:
        name = str(ref.get("name") if isinstance(ref, dict) else ref)
        if (library / name).is_dir():
            yield from _toolset_folder(library / name)
        else:
            found = _toolset_file(library, name)
            if found is None:
                yield (
                    f"Toolset not found: {name}. Looked for directory, file, or file "
                    f"with .mci.json/.mci.yaml/.mci.yml extension in {library}"
                )
            else:
                yield from _toolset_problems(found)
        if isinstance(ref, dict) and ref.get("filter") is not None:
            yield from _filter(ref["filter"], ref.get("filterValue"))


def _toolset_file(library: Path, name: str) -> Path | None:
    """The file, or the file with a toolset suffix, as mci-py looks."""
    candidates = [library / name] + [library / f"{name}{s}" for s in _TOOLSET_SUFFIXES]
    return next((path for path in candidates if path.is_file()), None)


def _toolset_folder(folder: Path) -> Iterator[str]:
    """A folder of toolset files: mci-py reads its ``*.mci.json`` files, which
    must all have one ``schemaVersion``."""
    files = sorted(folder.glob("*.mci.json"))
    if not files:
        yield f"No .mci.json files found in toolset directory: {folder}"
    versions: list[tuple[Path, object]] = []
    for path in files:
        yield from _toolset_problems(path)
        with path.open(encoding="utf-8") as text:
            versions.append((path, json.load(text)["schemaVersion"]))
    first = versions[0][1] if versions else None
    for path, version in versions:
        if version != first:
            yield (
                f"Schema version mismatch in toolset directory '{folder}': File "
                f"'{path.name}' has schemaVersion '{version}', but expected '{first}' "
                "(from first file in directory). All files in a toolset directory "
                "must use the same schema version."
            )


def _toolset_problems(path: Path) -> Iterator[str]:
    extension = path.suffix.lower()
    if extension not in _EXTENSIONS:
        yield (
            f"Unsupported toolset file extension '{extension}'. "
            f"Supported extensions: {', '.join(_EXTENSIONS)}"
        )
        return
    try:
        document = _read(path, "toolset file")
    except _Unreadable as problem:
        yield str(problem)
        return
    if not isinstance(document, dict):
        yield (
            f"Toolset file {path} must contain a JSON/YAML object, "
            f"got {type(document).__name__}"
        )
        return
    for field in ("schemaVersion", "tools"):
        if field not in document:
            yield f"Toolset file {path} missing required field '{field}'"
            return
    version = _version_problem(document["schemaVersion"])
    if version is not None:
        yield version
    tools = document["tools"]
    if not isinstance(tools, list):
        yield (
            f"Toolset file {path} field 'tools' must be a list, "
            f"got {type(tools).__name__}"
        )
        return
    yield from _tools(tools)


def _filter(kind: Any, value: Any) -> Iterator[str]:
    if value is None:
        yield f"Filter type '{kind}' specified but filterValue is missing"
    elif not any(item.strip() for item in str(value).split(",")):
        yield f"Filter value cannot be empty for filter type '{kind}'"
    elif kind not in _FILTERS:
        yield (f"Invalid filter type '{kind}'. Valid types: {', '.join(_FILTERS)}")


class _Unreadable(Exception):
    """A file mci-py cannot read, in its words."""


def _read(path: Path, what: str) -> Any:
    """The document at ``path``; ``what`` the file is called in mci-py's words."""
    try:
        with path.open(encoding="utf-8") as text:
            if path.suffix.lower() == ".json":
                return json.load(text)
            return yaml.safe_load(text)
    except json.JSONDecodeError as error:
        raise _Unreadable(f"Invalid JSON in {what} {path}: {error}") from None
    except yaml.YAMLError as error:
        raise _Unreadable(f"Invalid YAML in {what} {path}: {error}") from None
    except (OSError, UnicodeDecodeError) as error:
        raise _Unreadable(f"Failed to read {what} {path}: {error}") from None
