"""How large a schema document may grow once YAML aliases are expanded.

A few lines of YAML can alias one long string into every tool: the file is small, but
each copy is written into the package. The limit counts the characters of keys and
scalar values after expansion, measured while the document is composed (see
``yaml_reader.py``); a JSON document has no aliases and is held to it by its length.
Either may hold at most ``MAX_NODES`` nodes, counted as they are read.

The limit comes from the environment variable ``MCIGEN_MAX_DOCUMENT_CHARS`` rather
than a command-line option: it then holds for every file a command reads (schema,
toolset files, MCP caches) and for every command (build, check, list) without being
passed through each stage.
"""

from __future__ import annotations

import os

from ..diagnostics import quoted

ENV_VAR = "MCIGEN_MAX_DOCUMENT_CHARS"
MAX_NODES = 1_000_000
"""The most nodes (values and keys) a document may hold, YAML's aliases expanded:
each gets a position in the source map, some 200 bytes."""
DEFAULT_MAX_CHARS = 16 * 1024 * 1024


def max_document_chars() -> int:
    """The limit in characters; ValueError when the environment sets a bad one."""
    raw = os.environ.get(ENV_VAR)
    if raw is None:
        return DEFAULT_MAX_CHARS
    if not raw.strip().isdigit() or int(raw) == 0:
        raise ValueError(
            f"{ENV_VAR} must be a positive number of characters, got {quoted(raw)}"
        )
    return int(raw)


def max_document_bytes() -> int:
    """The most bytes a file within the limit may take (a character is 4 bytes at
    most, in UTF-8); ValueError when the environment sets a bad limit."""
    return 4 * max_document_chars()


def over_budget(limit: int) -> str:
    """The message for a document that grows past ``limit`` characters."""
    return f"the document grows past {limit} characters here ({ENV_VAR} sets the limit)"


def too_many_nodes(limit: int) -> str:
    return f"the document holds more than {limit} nodes"
