"""Templates read from files at call time: parsed and compiled to a Python function
once per file version, then run.

The parser and the compiler are imported on the first file compiled, and asyncio
on the first call awaited: importing a package of tools loads neither.

The cache is keyed by (path, mtime, size), so an edited file is compiled again and
an unchanged one never is. A file whose template cannot be parsed gives an error
naming the file, line and column.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from .lookup import TemplateRuntimeError

if TYPE_CHECKING:
    from .template_compiler import Renderer

T = TypeVar("T")

_CACHE_LIMIT = 256
_cache: dict[tuple[str, int, int, str], Renderer] = {}


def file_contents(
    shown: str, path: str, context: dict[str, Any], templating: bool, whitespace: str
) -> str:
    """What a file tool returns: the file at ``path``, rendered when ``templating``.

    Every failure is a :class:`TemplateRuntimeError` whose message (naming the path
    as the schema's template produced it, ``shown``) is the tool's error result.
    """
    if not os.path.exists(path):
        raise TemplateRuntimeError(f"File not found: {shown}")
    if not os.path.isfile(path):
        raise TemplateRuntimeError(f"Path is not a file: {shown}")
    try:
        if templating:
            return render_file(path, context, whitespace)
        with open(path, encoding="utf-8") as handle:
            return handle.read()
    except (OSError, UnicodeDecodeError) as error:
        raise TemplateRuntimeError(str(error)) from None


def render_file(path: str, context: dict[str, Any], whitespace: str = "compat") -> str:
    """The contents of the file at ``path`` rendered with ``context``.

    Raises :class:`OSError` when the file cannot be read, :class:`UnicodeDecodeError`
    when it is not UTF-8, and :class:`TemplateRuntimeError` when its template is
    malformed or cannot be rendered with these values.
    """
    return file_renderer(path, whitespace)(dict(context))


def file_renderer(path: str, whitespace: str = "compat") -> Renderer:
    """The compiled template of the file at ``path`` as it is now."""
    status = os.stat(path)
    key = (path, status.st_mtime_ns, status.st_size, whitespace)
    renderer = _cache.get(key)
    if renderer is None:
        from .template_ast import TemplateSyntaxError
        from .template_compiler import compile_renderer
        from .template_parser import parse_template

        with open(
            path, encoding="utf-8"
        ) as handle:  # universal newlines, as mci-py reads
            text = handle.read()
        try:
            template = parse_template(text, directives=True, whitespace=whitespace)
        except TemplateSyntaxError as error:
            line = text.count("\n", 0, error.offset) + 1
            column = error.offset - (text.rfind("\n", 0, error.offset) + 1) + 1
            raise TemplateRuntimeError(
                f"{path}:{line}:{column}: {error.message}"
            ) from None
        renderer = compile_renderer(template, path)
        if len(_cache) >= _CACHE_LIMIT:
            del _cache[next(iter(_cache))]
        _cache[key] = renderer
    return renderer


async def in_thread(function: Callable[..., T], *args: Any) -> T:
    """``asyncio.to_thread``: a file tool's async twin reads the file off the loop."""
    import asyncio

    return await asyncio.to_thread(function, *args)
