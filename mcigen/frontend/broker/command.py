"""A source's ``command``: split into words as a POSIX shell would (``shlex``), but
never run by one; ``${NAME}`` inside a word is read from the environment when the
server starts. Each word becomes a template of text and ``env.NAME`` placeholders,
so that nothing else in it (``{{``, ``@if(``) is ever read as a template."""

from __future__ import annotations

import shlex

from mcigen_runtime.templating.syntax import Node, PathRef, Placeholder, Template, Text

from ..context import At, Context
from .variables import VARIABLE


def command_words(ctx: Context, at: At, command: str) -> tuple[Template, ...]:
    """The words of ``command``; none (and an error) when it cannot be split or
    names no program."""
    try:
        words = shlex.split(command, posix=True)
    except ValueError as error:
        ctx.error(at, f"'command' cannot be split into words: {error}")
        return ()
    if not words:
        ctx.error(at, "'command' names no program")
        return ()
    return tuple(_word(word) for word in words)


def _word(word: str) -> Template:
    nodes: list[Node] = []
    end = 0
    for match in VARIABLE.finditer(word):
        if match.start() > end:
            nodes.append(Text(word[end : match.start()]))
        name = match[1]
        reference = PathRef(("env", name), match.start())
        nodes.append(Placeholder(f"env.{name}", (reference,), match.start()))
        end = match.end()
    if end < len(word) or not nodes:
        nodes.append(Text(word[end:]))
    return Template(tuple(nodes))
