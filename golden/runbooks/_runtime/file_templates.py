"""Templates read from files at call time: parsed and compiled to a Python function
once per file version, then run.

The cache is keyed by (path, mtime, size), so an edited file is compiled again and
an unchanged one never is. A file whose template cannot be parsed gives an error
naming the file, line and column.

An async call renders a file already compiled on the event loop, as a text tool
renders its template (checking the version costs one ``stat``); reading a file,
to compile it or to return it as it is, happens in a worker thread. The parser and
the compiler are imported on the first file compiled, asyncio on the first call
that needs a thread: importing a package of tools loads neither.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Mapping
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any

from .limits import Limits
from .lookup import TemplateRuntimeError

if TYPE_CHECKING:
    from .results import ToolResult
    from .template_compiler import Renderer

_CACHE_LIMIT = 256
_TEXT_OUTPUT = Limits().text_output
_cache: dict[tuple[str, int, int, str], Renderer] = {}

_on_loop: ContextVar[bool] = ContextVar("mcigen_file_call_on_loop", default=False)
"""Set while an async call runs on the event loop, where no file may be read."""


class _MustRead(Exception):
    """The call needs to read a file: it moves from the event loop to a thread."""


def file_contents(
    shown: str, path: str, context: dict[str, Any], templating: bool, whitespace: str
) -> str:
    """What a file tool returns: the file at ``path``, rendered when ``templating``.

    Every failure is a :class:`TemplateRuntimeError` whose message (naming the path
    as the schema's template produced it, ``shown``) is the tool's error result.
    """
    try:
        status = os.stat(path)
    except (OSError, ValueError):  # what os.path.exists takes for "not there"
        raise TemplateRuntimeError(f"File not found: {shown}") from None
    if not stat.S_ISREG(status.st_mode):
        raise TemplateRuntimeError(f"Path is not a file: {shown}")
    try:
        if templating:
            return _renderer(path, status, whitespace)(dict(context), _TEXT_OUTPUT)
        if _on_loop.get():
            raise _MustRead
        with open(path, encoding="utf-8") as handle:
            return handle.read()
    except (OSError, UnicodeDecodeError) as error:
        raise TemplateRuntimeError(str(error)) from None


def render_file(
    path: str,
    context: dict[str, Any],
    whitespace: str = "compat",
    limit: int = _TEXT_OUTPUT,
) -> str:
    """The contents of the file at ``path`` rendered with ``context``.

    Raises :class:`OSError` when the file cannot be read, :class:`UnicodeDecodeError`
    when it is not UTF-8, and :class:`TemplateRuntimeError` when its template is
    malformed, cannot be rendered with these values or renders more than ``limit``
    characters (or loop turns).
    """
    return file_renderer(path, whitespace)(dict(context), limit)


def file_renderer(path: str, whitespace: str = "compat") -> Renderer:
    """The compiled template of the file at ``path`` as it is now."""
    return _renderer(path, os.stat(path), whitespace)


def _renderer(path: str, status: os.stat_result, whitespace: str) -> Renderer:
    key = (path, status.st_mtime_ns, status.st_size, whitespace)
    renderer = _cache.get(key)
    if renderer is None:
        if _on_loop.get():
            raise _MustRead
        renderer = _compiled(path, whitespace)
        if len(_cache) >= _CACHE_LIMIT:
            del _cache[next(iter(_cache))]
        _cache[key] = renderer
    return renderer


def _compiled(path: str, whitespace: str) -> Renderer:
    from .template_ast import TemplateSyntaxError
    from .template_compiler import compile_renderer
    from .template_parser import parse_template

    with open(path, encoding="utf-8") as handle:  # universal newlines, as mci-py reads
        text = handle.read()
    try:
        template = parse_template(text, directives=True, whitespace=whitespace)
    except TemplateSyntaxError as error:
        line = text.count("\n", 0, error.offset) + 1
        column = error.offset - (text.rfind("\n", 0, error.offset) + 1) + 1
        raise TemplateRuntimeError(f"{path}:{line}:{column}: {error.message}") from None
    return compile_renderer(template, path)


FileCall = Callable[[Mapping[str, Any], Mapping[str, str]], "ToolResult"]


async def file_call_async(
    call: FileCall, raw: Mapping[str, Any], env: Mapping[str, str]
) -> ToolResult:
    """A file tool's async twin: ``call`` on the event loop when its file is compiled
    already, else in a worker thread."""
    token = _on_loop.set(True)
    try:
        return call(raw, env)
    except _MustRead:
        pass
    finally:
        _on_loop.reset(token)
    import asyncio

    return await asyncio.to_thread(call, raw, env)
