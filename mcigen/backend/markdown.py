"""Markdown built from schema data, and the type that marks it as such.

The Markdown templates (``templates/project/``) write only :class:`Markdown`; a
string from input becomes Markdown only through the functions here, each for one
place: :func:`text` (a line of prose), :func:`paragraphs` (a description),
:func:`code` (a code span), :func:`cell` (a table cell), :func:`fenced` (a code
block). What they make renders as the input's characters (CommonMark and GitHub's
tables): no markup, link or HTML of the input's own survives. Characters that are
not printable are shown as their escapes (``\\n``, ``\\x1b``), as diagnostics show
them, so a README read in a terminal carries no control sequence.
"""

from __future__ import annotations

import re

from ..diagnostics import printable


class Markdown(str):
    """Markdown made from input only by the functions of this module."""

    __slots__ = ()


def markup(text: str) -> Markdown:
    """Markdown written by the backend itself: marked as it is."""
    return Markdown(text)


_INLINE = re.compile(r"[\\`*_\[\]<>&~|$]")
"""What starts markup anywhere in a line: emphasis, code, links, HTML, entities,
strikethrough, table cells, math (GitHub), and the backslash that escapes them."""
_LINE_START = re.compile(r"[#+\-=]|\d+[.)]")
"""What starts a block at the beginning of a line: headings, list items, setext
underlines and thematic breaks (``>``, ``*`` and ``_`` are escaped anywhere)."""


def text(value: str) -> Markdown:
    """``value`` as one line of inline text (a heading, a sentence, a cell)."""
    line = _INLINE.sub(r"\\\g<0>", printable(value).strip())
    start = _LINE_START.match(line)
    if start is not None:
        end = start.end()
        line = f"{line[: end - 1]}\\{line[end - 1 :]}"
    return Markdown(line)


def paragraphs(value: str) -> Markdown:
    """``value`` as paragraphs: its blank lines separate them, its other line breaks
    stay line breaks within one, and indentation (a code block) is dropped."""
    runs: list[list[str]] = [[]]
    for line in value.splitlines():
        if line.strip():
            runs[-1].append(text(line))
        elif runs[-1]:
            runs.append([])
    return Markdown("\n\n".join("\n".join(run) for run in runs if run))


def code(value: str) -> Markdown:
    """``value`` as a code span: delimited by more backticks than any run in it,
    padded where a backtick or a space at its ends would be lost."""
    content = printable(value) or " "
    fence = "`" * (_longest_backtick_run(content) + 1)
    if content[0] == "`" or content[-1] == "`" or _stripped_by_renderers(content):
        content = f" {content} "
    return Markdown(f"{fence}{content}{fence}")


def _stripped_by_renderers(content: str) -> bool:
    """CommonMark drops one space from each end of a span that has one at both."""
    return content[0] == " " and content[-1] == " " and bool(content.strip(" "))


def cell(content: Markdown) -> Markdown:
    """Inline Markdown as a table cell: every ``|`` escaped, in code spans too (GitHub
    splits the row before it reads the spans, and takes ``\\|`` for a ``|``)."""
    return Markdown(str(content).replace("|", "\\|"))


def fenced(content: str, info: str) -> Markdown:
    """``content`` as a fenced code block of language ``info`` (the backend's): the
    fence is longer than any run of backticks in it."""
    body = "\n".join(printable(line) for line in content.split("\n"))
    fence = "`" * max(3, _longest_backtick_run(body) + 1)
    return Markdown(f"{fence}{info}\n{body}\n{fence}")


def _longest_backtick_run(content: str) -> int:
    return max((len(run) for run in re.findall("`+", content)), default=0)
