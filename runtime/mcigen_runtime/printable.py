"""The one way text from input is shown to a person: in a diagnostic, an error
message, a log line.

A schema, a tool file, a broker config or an MCP server's tool list may hold names
and values with a newline, a carriage return, a terminal escape (``ESC [ 31 m``), a
NUL, a line separator or a bidi override: printed as they are, they would forge
lines of output or recolour the terminal. Every character that is not printable is
shown as ``repr`` writes it (``\\n``, ``\\x1b``, ``\\u202e``); printable characters,
non-ASCII ones too, are left as they are.
"""

from __future__ import annotations


def printable(text: str) -> str:
    """``text`` with every character that is not printable written as its escape."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def quoted(value: object) -> str:
    """``value`` (a name, key, path or value of the input) between single quotes,
    as messages name it, its characters that are not printable escaped."""
    return f"'{printable(str(value))}'"


def printable_json(text: str) -> str:
    """One line of JSON text with every character that is not printable written
    as JSON's own escape: an encoder escapes control characters, but keeps DEL,
    U+0085, U+2028 and a bidi override as they are."""
    if text.isprintable():
        return text
    import json  # here: the module is imported by every package's errors

    return "".join(c if c.isprintable() else json.dumps(c)[1:-1] for c in text)


def printable_indented_json(value: object) -> str:
    """``value`` as JSON indented by two, its lines kept, each shown through
    :func:`printable_json` (non-ASCII printable characters as they are)."""
    import json  # here: see printable_json

    text = json.dumps(value, indent=2, ensure_ascii=False)
    return "\n".join(printable_json(line) for line in text.split("\n"))


def printable_lines(text: str) -> str:
    """``text`` whose lines are kept, each shown through :func:`printable`."""
    return "\n".join(printable(line) for line in text.split("\n"))
