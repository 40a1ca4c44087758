"""The path policy of file tools (and cli working directories), checked on what is opened.

A relative path is taken against the base directory: the schema's directory, or the
one ``Client(base_dir=...)`` or the environment variable ``MCIGEN_BASE_DIR`` names
(a relative one against the current directory). Unless the tool enables any path,
the path, with every symlink resolved, must lie inside the base directory or a
directory of the allow list (relative entries are taken against the base directory
too).

What is checked is what was opened: the descriptor's own path, as the kernel
resolved it (``/proc/self/fd/N``), so a directory swapped for a symlink to elsewhere
while the path is used is refused, never read, and a command starts in the
directory opened and checked, not in whatever its name designates by then. The
name is checked instead (mci-py's check, with its messages) when opening fails, as
mci-py refuses a path outside the policy before it looks for the file, and on
systems without ``/proc``.

An MTDF tool's working directory must lie in the sandbox scopes (a server's
client's roots or fixed scopes; else the base directory, else the current
directory), checked on the descriptor the command starts in; its ``format: path``
values are opened beneath that directory, checked on their descriptors, and given
to the command as those descriptors.
"""

from __future__ import annotations

import contextlib
import os
import sys
from contextvars import ContextVar
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from types import TracebackType

BASE_DIR_OVERRIDE: ContextVar[str | None] = ContextVar("base_dir", default=None)
"""A base directory that replaces the schema's for the calls made in this context:
what ``Client(base_dir=...)`` sets around each call."""

BASE_DIR_VARIABLE = "MCIGEN_BASE_DIR"
"""The environment variable that replaces the schema's directory (read at each call)."""


DIRECTORY_FLAGS = os.O_DIRECTORY | getattr(os, "O_PATH", os.O_RDONLY)
"""How a working directory is opened: to start a command in, never to read."""


class PathRefused(Exception):
    """A path the tool may not, or cannot, use; the message says why."""


def schema_directory(module_file: str, way: str) -> str | None:
    """The schema's directory for the generated module at ``module_file``: ``way``
    (a POSIX path) from the package's directory, symlinks resolved; None when that
    way climbs above the file system's root (the package was moved away from its
    schema)."""
    package = os.path.realpath(os.path.join(os.path.dirname(module_file), os.pardir))
    depth = package.rstrip(os.sep).count(os.sep)
    for part in way.split("/"):
        if part == os.pardir:
            depth -= 1
        elif part not in ("", os.curdir):
            depth += 1
        if depth < 0:
            return None
    return os.path.realpath(os.path.join(package, way))


class CheckedPath:
    """A path under a tool's policy: what is opened through it is checked on the
    descriptor; the name is checked when opening fails (mci-py refuses a path
    outside the policy before it looks for the file) or the system cannot say what
    a descriptor designates."""

    __slots__ = ("path", "shown", "_base", "_allow_list")

    def __init__(
        self, path: str, shown: str, base: str | None, allow_list: tuple[str, ...]
    ) -> None:
        self.path = path
        """Absolute, unless any path is allowed (then as given, against the base)."""
        self.shown = shown
        """The path as the tool's template produced it, for messages."""
        self._base = base
        """The base directory, resolved; None when any path is allowed."""
        self._allow_list = allow_list

    def open(self, flags: int) -> tuple[int, str]:
        """A descriptor of what the path designates, opened with ``flags``, and its
        path with every symlink resolved (the path itself when any path is allowed)."""
        try:
            descriptor = os.open(self.path, flags | os.O_CLOEXEC)
        except OSError as error:  # named as resolved, once the policy allows the name
            raise OSError(error.errno, error.strerror, self.check_name()) from None
        if self._base is None:
            return descriptor, self.path
        real = _descriptor_path(descriptor)
        if real is None:
            return descriptor, self.check_name()
        if not self._allows(real):
            os.close(descriptor)
            raise PathRefused(_refusal(self.shown))
        return descriptor, real

    def check_name(self) -> str:
        """The path with every symlink resolved as it is now; :class:`PathRefused`
        when the policy does not allow it."""
        if self._base is None:
            return self.path
        try:  # fails on a NUL byte, or a symlink swapped meanwhile
            real = os.path.realpath(self.path)
        except (OSError, ValueError) as error:
            raise PathRefused(str(error)) from None
        if not self._allows(real):
            raise PathRefused(_refusal(self.shown))
        return real

    def working_directory(self) -> WorkingDirectory:
        """The directory at the path, opened and checked, for a command to start in."""
        try:
            descriptor, _ = self.open(DIRECTORY_FLAGS)
        except OSError as error:  # what starting the command would say
            if error.strerror is None:
                raise PathRefused(str(error)) from None
            # naming the directory as the schema wrote it, as mci-py does
            shown = f"[Errno {error.errno}] {error.strerror}: {self.shown!r}"
            raise PathRefused(shown) from None
        except ValueError as error:  # a NUL byte
            raise PathRefused(str(error)) from None
        return WorkingDirectory(descriptor, self.path)

    def _allows(self, real: str) -> bool:
        """Whether ``real`` lies in the base directory or a directory of the allow
        list (resolved only when needed: most paths lie in the base directory)."""
        base = self._base
        assert base is not None
        if lies_inside(real, base):
            return True
        for entry in self._allow_list:
            try:
                root = os.path.realpath(os.path.join(base, entry))
            except (OSError, ValueError):
                continue
            if lies_inside(real, root):
                return True
        return False


class WorkingDirectory(os.PathLike[str]):
    """An opened, checked directory: given as a process's ``cwd``, the process starts
    in this very directory (the child changes into ``/proc/self/fd/N`` before it
    closes the descriptor). Close it once the process has started.

    It may hold more descriptors, of what the command's path operands name
    (:meth:`hold`): the process is given them (``pass_fds``), and closing the
    directory closes them too."""

    __slots__ = ("_descriptor", "_spawn_path", "_path", "held", "confined_to")

    def __init__(self, descriptor: int, path: str | None) -> None:
        """``path`` None: read from the descriptor when first asked for (only
        where the system names what a descriptor designates)."""
        self._descriptor = descriptor
        self._path = path
        self.held: tuple[int, ...] = ()
        """Descriptors the process is given besides its directory."""
        self.confined_to: tuple[str, ...] | None = None
        """The directories the kernel lets the process write beneath (None: it is
        not confined)."""
        self._spawn_path = f"/proc/self/fd/{descriptor}" if _PROC_FD else path

    @property
    def path(self) -> str:
        """The directory's path, as opened (resolved, when it was checked)."""
        if self._path is None:
            self._path = _descriptor_path(self._descriptor) or os.getcwd()
        return self._path

    def __fspath__(self) -> str:
        assert self._spawn_path is not None
        return self._spawn_path

    def hold(self, path: str) -> str:
        """``path`` (relative to this directory) opened beneath it and held for the
        process: the path the process can use, ``/proc/self/fd/N`` (for a file
        not there yet, that of its folder, then its name), which no later change
        to the names on the way can redirect. :class:`PathRefused` when
        it lies outside this directory, symlinks resolved."""
        if not _PROC_FD:  # no descriptor paths: the name, checked as it is now
            return _inside_by_name(path, self.path)
        try:
            descriptor, rest = _open_operand(self._descriptor, path)
        except ValueError as error:  # a NUL byte
            raise PathRefused(f"Path {path!r} cannot be used: {error}") from None
        except OSError:
            _inside_by_name(path, self.path)  # outside is said first, as Ahma does
            raise
        self.held += (descriptor,)
        real = _descriptor_path(descriptor)
        if real is None or not lies_inside(real, self.path):
            raise PathRefused(_operand_outside(path, self.path))
        return f"/proc/self/fd/{descriptor}" + (f"/{rest}" if rest else "")

    def name(self, path: str) -> str:
        """``path`` (relative to this directory) absolute and canonical, as it
        resolves now; :class:`PathRefused` when it lies outside this directory.
        Unlike :meth:`hold`, a folder on the way swapped for a symlink before the
        process opens the path redirects it."""
        return _inside_by_name(path, self.path)

    def close(self) -> None:
        for descriptor in self.held:
            os.close(descriptor)
        self.held = ()
        if self._descriptor >= 0:
            os.close(self._descriptor)
            self._descriptor = -1

    def __enter__(self) -> WorkingDirectory:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()


def checked_path(
    path: str, base_dir: str | None, enable_any_paths: bool, allow_list: tuple[str, ...]
) -> CheckedPath:
    """``path`` under the tool's policy, against the base directory.

    ``base_dir`` is the schema's directory, resolved (None: it cannot be found from
    where the package is). Raises :class:`PathRefused` when the base directory is
    needed and missing.
    """
    if enable_any_paths and os.path.isabs(path):  # no directory is consulted
        return CheckedPath(path, path, None, ())
    base = _base_directory(base_dir)
    target = os.path.join(base, path)
    return CheckedPath(target, path, None if enable_any_paths else base, allow_list)


def _chosen_base_directory() -> str | None:
    """The base directory the user named (``Client(base_dir=...)``, else
    ``MCIGEN_BASE_DIR``), if any."""
    return BASE_DIR_OVERRIDE.get() or os.environ.get(BASE_DIR_VARIABLE)


def _base_directory(schema_dir: str | None) -> str:
    chosen = _chosen_base_directory()
    if chosen:
        return os.path.realpath(chosen)
    if schema_dir is None or not os.path.isdir(schema_dir):
        where = schema_dir or "above the file system's root"
        raise PathRefused(
            f"The schema's directory ({where}) does not exist where the package "
            "runs, so its relative paths cannot be resolved; name the directory "
            f"with Client(base_dir=...) or the environment variable {BASE_DIR_VARIABLE}"
        )
    return schema_dir


def sandbox_scopes() -> tuple[str, ...]:
    """The directories a cli call may choose its working directory in when no
    server set the call's sandbox, resolved: the base directory
    (``Client(base_dir=...)``, ``MCIGEN_BASE_DIR``), else the current directory."""
    chosen = _chosen_base_directory()
    if not chosen and _CWD_RESOLVED:
        return (os.getcwd(),)
    return (os.path.realpath(chosen or os.curdir),)


_CWD_RESOLVED = sys.platform == "linux"
"""Whether ``os.getcwd()`` gives the working directory with its symlinks resolved,
as ``realpath`` would: Linux's ``getcwd`` walks the directory's own entries up to
the root (one system call where ``realpath`` takes one per component)."""


class Sandbox(NamedTuple):
    """Where an MTDF call may work, and how that is enforced (a NamedTuple: a
    frozen dataclass costs ~2 M instructions more to make, at every import)."""

    scopes: tuple[str, ...]
    """Resolved directories; the first is where a relative working directory is
    taken from, and the default one."""
    checked: bool = True
    """Whether the working directory must lie in a scope (``--no-sandbox`` turns
    it off)."""
    confined: bool = False
    """Whether the kernel lets the command write only beneath the scopes (strict
    mode: on in a server)."""


CALL_SANDBOX: ContextVar[Sandbox | None] = ContextVar("sandbox", default=None)
"""The sandbox a server sets around each call (its client's roots, its fixed
scopes, or none of it); without one, :func:`call_sandbox` gives the default."""


def call_sandbox() -> Sandbox:
    """The sandbox of the call being made: the one a server set, else checks
    against :func:`sandbox_scopes` without kernel confinement."""
    global _default_sandbox
    chosen = CALL_SANDBOX.get()
    if chosen is not None:
        return chosen
    scopes = sandbox_scopes()
    if _default_sandbox.scopes != scopes:
        _default_sandbox = Sandbox(scopes)
    return _default_sandbox


_default_sandbox = Sandbox(())
"""The last default sandbox made: most calls are made from the same directory,
and reusing it saves building one a call."""


def writable_directories(
    base_dir: str | None, allow_list: tuple[str, ...]
) -> tuple[str, ...] | None:
    """Where a ``--confine-cli`` command may write: the base directory and the
    directories of the allow list that exist (relative ones against the base),
    resolved; None when a server runs with the sandbox off. :class:`PathRefused`
    when the base directory is needed and missing."""
    chosen = CALL_SANDBOX.get()
    if chosen is not None and not chosen.checked:
        return None
    base = _base_directory(base_dir)
    entries = (os.path.realpath(os.path.join(base, entry)) for entry in allow_list)
    return (base, *(entry for entry in entries if os.path.isdir(entry)))


class OutsideScopes(PathRefused):
    """A working directory outside every scope a call may work in."""


def confined_directory(path: str, scopes: tuple[str, ...]) -> WorkingDirectory:
    """The directory at ``path`` (relative to the first scope), opened, and checked
    on its descriptor to lie in one of ``scopes`` (symlinks resolved):
    :class:`OutsideScopes` when it does not, :class:`OSError` when it cannot be
    opened."""
    root = scopes[0]
    # the default, the root itself: posixpath.join is a fifth of this function
    target = root if path == os.curdir else os.path.join(root, path)
    descriptor = os.open(target, DIRECTORY_FLAGS | os.O_CLOEXEC)
    # without descriptor paths: the name, as it resolves now
    real = _descriptor_path(descriptor) or os.path.realpath(target)
    for scope in scopes:
        if lies_inside(real, scope):
            return WorkingDirectory(descriptor, real)
    os.close(descriptor)
    if len(scopes) == 1:
        raise OutsideScopes(f'Path "{path}" is outside the sandbox root "{root}"')
    roots = ", ".join(f'"{scope}"' for scope in scopes)
    raise OutsideScopes(f'Path "{path}" is outside the sandbox roots {roots}')


def opens_current_directory() -> bool:
    """Whether a call's working directory, when it is the current directory, may be
    opened by :func:`current_directory`: the default sandbox's only scope is the
    current directory (no server set the call's sandbox, no base directory is
    named) and the system names what a descriptor designates."""
    return (
        _CWD_OPENED_AS_IS
        and CALL_SANDBOX.get() is None
        and not _chosen_base_directory()
    )


def current_directory() -> WorkingDirectory:
    """The current directory, opened, where :func:`opens_current_directory`. It
    lies in the sandbox's scope by definition, so nothing is checked, and its path
    is read from the descriptor only when asked for: after a command, each system
    call costs more than its warm figure (a ``getcwd`` and a ``readlink`` were
    ~35 µs of a ~250 µs call)."""
    return WorkingDirectory(os.open(os.curdir, DIRECTORY_FLAGS | os.O_CLOEXEC), None)


def current_path() -> str:
    """The current directory's path, to tell: once it was removed, as the system
    names it (``/srv/gone (deleted)``), where a command still starts."""
    try:
        return os.getcwd()
    except FileNotFoundError:
        with contextlib.suppress(OSError):
            return os.readlink("/proc/self/cwd")
        return os.curdir


def open_directory(path: str) -> WorkingDirectory:
    """The directory at ``path`` (not checked against any policy), opened for a
    command to start in; :class:`OSError` when it cannot be."""
    return WorkingDirectory(os.open(path, DIRECTORY_FLAGS | os.O_CLOEXEC), path)


def lies_inside(real: str, root: str) -> bool:
    """Whether the resolved path ``real`` is ``root`` or lies below it."""
    return real == root or real.startswith(root.rstrip(os.sep) + os.sep)


_PROC_FD = os.path.isdir("/proc/self/fd")
"""Whether the system names what a descriptor designates (Linux's ``/proc``)."""
_CWD_OPENED_AS_IS = _PROC_FD and _CWD_RESOLVED
"""Whether :func:`current_directory` may open the current directory unchecked."""
_OPERAND_FLAGS = getattr(os, "O_PATH", os.O_RDONLY) | os.O_CLOEXEC


def _open_operand(directory: int, path: str) -> tuple[int, str]:
    """What ``path`` designates, opened relative to ``directory`` (never to read or
    write: a FIFO does not block), and ``""``; or, for a file not there yet (one
    the command is to write), its folder opened, and its name."""
    parent, name = os.path.split(path)
    try:
        return os.open(path, _OPERAND_FLAGS, dir_fd=directory), ""
    except FileNotFoundError:
        if name not in ("", os.curdir, os.pardir):
            with contextlib.suppress(FileNotFoundError):
                flags = _OPERAND_FLAGS | os.O_DIRECTORY
                return os.open(parent or os.curdir, flags, dir_fd=directory), name
        normal = os.path.normpath(path)
        if normal == path:
            raise
    return _open_operand(directory, normal)  # "gone/..": taken lexically, as Ahma


def _inside_by_name(path: str, root: str) -> str:
    """``path`` (relative to ``root``) with every symlink resolved as it is now."""
    try:
        real = os.path.realpath(os.path.join(root, path))
    except (OSError, ValueError) as error:  # a NUL byte, a symlink loop
        raise PathRefused(f"Path {path!r} cannot be used: {error}") from None
    if not lies_inside(real, root):
        raise PathRefused(_operand_outside(path, root))
    return real


def _operand_outside(path: str, root: str) -> str:
    return (
        f'Path "{path}" is outside the working directory "{root}": a path '
        "argument must name something inside it"
    )


def _descriptor_path(descriptor: int) -> str | None:
    """The path of what ``descriptor`` designates, as the kernel resolved it; None
    where the system does not say."""
    try:
        return os.readlink(f"/proc/self/fd/{descriptor}")
    except OSError:
        return None


def _refusal(shown: str) -> str:
    return (
        "File path access outside context directory and allow-list is not allowed "
        f"unless enableAnyPaths is true. Path: {shown}"
    )
