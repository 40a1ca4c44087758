"""What the file executor does: files read by file tools at call time, opened once,
checked on the descriptor, bounded in size, and, when templated, parsed and
compiled to a Python function once per file version, then run.

A file is opened without blocking (a FIFO or a device is refused, never waited
on), must be a regular file no larger than the call's ``file_size`` limit, and is
read from the very descriptor the path policy checked. The compiled-template cache
is keyed by that descriptor's status (device, inode, size, times), so an edited file
is compiled again and an unchanged one never is. A file whose template cannot be
parsed gives an error naming the file, line and column. A file's template sees
only the environment variables the package names (the schema's own templates and
``mcigen build --file-env``), not the whole environment.

An async call renders a file already compiled on the event loop, as a text tool
renders its template (opening and checking it costs a few system calls); reading a
file, to compile it or to return it as it is, happens in a worker thread. The parser
and the compiler are imported on the first file compiled, asyncio on the first call
that needs a thread: importing a package of tools loads neither.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Collection, Mapping
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any

from ...limits import DEFAULT, Limits, active
from ...templating.lookup import TemplateRuntimeError

if TYPE_CHECKING:
    from ...path_policy import CheckedPath
    from ...results import ToolResult
    from ...templating.compiler import Renderer

_CACHE_LIMIT = 256
_cache: dict[tuple[Any, ...], Renderer] = {}

_READ_FLAGS = os.O_RDONLY | os.O_NONBLOCK
"""How a file is opened: a FIFO without a writer must not hold the call."""
_CHUNK = 1 << 16

_on_loop: ContextVar[bool] = ContextVar("mcigen_file_call_on_loop", default=False)
"""Set while an async call runs on the event loop, where no file may be read."""


class _MustRead(Exception):
    """The call needs to read a file: it moves from the event loop to a thread."""


def file_contents(
    checked: CheckedPath,
    *,
    context: dict[str, Any],
    limits: Limits,
    env_names: Collection[str],
    templating: bool,
    whitespace: str,
) -> str:
    """What a file tool returns: the file at ``checked``, rendered when ``templating``
    with ``context`` whose ``env`` is cut down to ``env_names``.

    Every failure is a :class:`TemplateRuntimeError` (or the path's
    :class:`~mcigen_runtime.path_policy.PathRefused`) whose message, naming the path as the schema's
    template produced it, is the tool's error result.
    """
    shown = checked.shown
    try:
        status = os.stat(checked.path)
    except (OSError, ValueError):  # what os.path.exists takes for "not there"
        checked.check_name()  # mci-py refuses a path outside the policy first
        raise TemplateRuntimeError(f"File not found: {shown}") from None
    if not stat.S_ISREG(status.st_mode):
        checked.check_name()
        raise TemplateRuntimeError(f"Path is not a file: {shown}")
    if not templating and _on_loop.get():
        raise _MustRead
    try:
        descriptor, real = checked.open(_READ_FLAGS)
    except OSError as error:
        raise TemplateRuntimeError(str(error)) from None
    try:
        bounds = active(limits)
        opened = _Opened(descriptor, real, shown, bounds.file_size)
        if templating:
            render = _renderer(opened, whitespace)
            return render(_with_env(context, env_names), bounds.text_output)
        return opened.text()
    except (OSError, UnicodeDecodeError) as error:
        raise TemplateRuntimeError(str(error)) from None
    finally:
        os.close(descriptor)


def render_file(
    path: str,
    context: dict[str, Any],
    whitespace: str = "compat",
    limit: int = DEFAULT.text_output,
) -> str:
    """The contents of the file at ``path`` rendered with ``context``.

    Raises :class:`OSError` when the file cannot be read, :class:`UnicodeDecodeError`
    when it is not UTF-8, and :class:`TemplateRuntimeError` when its template is
    malformed, cannot be rendered with these values or renders more than ``limit``
    characters (or loop turns), or the file is not a regular file of at most the
    default ``file_size`` limit.
    """
    return file_renderer(path, whitespace)(dict(context), limit)


def file_renderer(path: str, whitespace: str = "compat") -> Renderer:
    """The compiled template of the file at ``path`` as it is now."""
    descriptor = os.open(path, _READ_FLAGS | os.O_CLOEXEC)
    try:
        return _renderer(_Opened(descriptor, path, path, DEFAULT.file_size), whitespace)
    finally:
        os.close(descriptor)


class _Opened:
    """A file opened for reading: a regular file of at most ``limit`` bytes when
    its descriptor was last looked at."""

    __slots__ = ("descriptor", "path", "shown", "limit", "status")

    def __init__(self, descriptor: int, path: str, shown: str, limit: int) -> None:
        self.descriptor = descriptor
        self.path = path
        """Where it was opened, resolved: template errors name it."""
        self.shown = shown
        self.limit = limit
        self.status = os.fstat(descriptor)
        if not stat.S_ISREG(self.status.st_mode):  # swapped since the check by name
            raise TemplateRuntimeError(f"Path is not a file: {shown}")
        if self.status.st_size > limit:
            raise TemplateRuntimeError(self._too_large(f"{self.status.st_size:,}"))

    def text(self) -> str:
        """The file as ``open(path, encoding="utf-8").read()`` gives it (universal
        newlines), as mci-py reads it."""
        chunks: list[bytes] = []
        wanted, total = min(self.status.st_size, self.limit) + 1, 0
        while total <= self.limit:
            chunk = os.read(self.descriptor, min(wanted, self.limit + 1 - total))
            if not chunk:
                data = b"".join(chunks)
                return data.decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")
            chunks.append(chunk)
            total += len(chunk)
            wanted = _CHUNK  # it grew since it was looked at
        raise TemplateRuntimeError(self._too_large("more"))

    def _too_large(self, size: str) -> str:
        return (
            f"File too large: {self.shown} holds {size} bytes, over the file_size "
            f"limit of {self.limit:,} bytes (mcigen build --limit, limited() or "
            "Client(limits=...) set it)"
        )


def _with_env(context: dict[str, Any], names: Collection[str]) -> dict[str, Any]:
    """``context`` with only the environment variables ``names`` lists."""
    env: Mapping[str, Any] = context["env"]
    return {**context, "env": {name: env[name] for name in names if name in env}}


def _renderer(opened: _Opened, whitespace: str) -> Renderer:
    status = opened.status
    key = (
        opened.path,
        status.st_dev,
        status.st_ino,
        status.st_size,
        status.st_mtime_ns,
        status.st_ctime_ns,
        whitespace,
    )
    renderer = _cache.get(key)
    if renderer is None:
        if _on_loop.get():
            raise _MustRead
        renderer = _compiled(opened.text(), opened.path, whitespace)
        if len(_cache) >= _CACHE_LIMIT:
            del _cache[next(iter(_cache))]
        _cache[key] = renderer
    return renderer


def _compiled(text: str, path: str, whitespace: str) -> Renderer:
    from ...templating.compiler import compile_renderer
    from ...templating.parser import parse_template
    from ...templating.syntax import TemplateSyntaxError

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
