"""Confining what a command may write, through Linux's Landlock (the kernel
interface itself, by ``ctypes``: no library is needed for three system calls).

The parent prepares a ruleset (:func:`write_confinement`): it names the
directories beneath which a command may create, write, remove, rename or
truncate files; everything else it may still read and execute. The child applies
it just before it executes the command (:meth:`Confinement.apply`, from
``preexec_fn``): two system calls on a descriptor the parent made, no allocation
worth the name, nothing that takes a lock. From then on the kernel refuses the
command, and all it starts, any write elsewhere, root included.

Rights the running kernel does not know (Landlock's ABI grows: renames across
directories from version 2, truncation from 3) are left out: on such a kernel
those operations stay as Landlock 1 leaves them (a rename into another directory
is refused; truncating an existing file is allowed).
"""

from __future__ import annotations

import ctypes
import errno
import os
import stat
import sys
import tempfile

_CREATE_RULESET = 444
_ADD_RULE = 445
_RESTRICT_SELF = 446
"""The system call numbers, the same on every architecture (they came after the
tables were unified)."""

_CREATE_RULESET_VERSION = 1
_RULE_PATH_BENEATH = 1
_PR_SET_NO_NEW_PRIVS = 38

_WRITE_FILE = 1 << 1
_REMOVE_DIR = 1 << 4
_REMOVE_FILE = 1 << 5
_MAKE = sum(1 << bit for bit in range(6, 13))
"""Making a character device, directory, regular file, socket, FIFO, block device
or symlink."""
_REFER = 1 << 13
_TRUNCATE = 1 << 14

_DEVICES = ("/dev/null", "/dev/zero", "/dev/full", "/dev/tty", "/dev/ptmx")
"""Devices every command may write to (what is written there stays there)."""
_DEVICE_DIRECTORIES = ("/dev/pts", "/dev/shm")
"""Terminals, and POSIX shared memory and semaphores (a tmpfs of its own)."""


class _RulesetAttr(ctypes.Structure):
    _fields_ = [("handled_access_fs", ctypes.c_uint64)]


class _PathBeneathAttr(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


class LandlockUnavailable(Exception):
    """The kernel cannot confine commands; the message says why."""


def _libc() -> ctypes.CDLL | None:
    if not sys.platform.startswith("linux"):
        return None
    return ctypes.CDLL(None, use_errno=True)


_LIBC = _libc()


def _syscall(number: int, *args: object) -> int:
    assert _LIBC is not None
    result = int(_LIBC.syscall(ctypes.c_long(number), *args))
    if result < 0:
        code = ctypes.get_errno()
        raise OSError(code, os.strerror(code))
    return result


def abi_version() -> int:
    """The Landlock ABI version of the running kernel; :class:`LandlockUnavailable`
    saying why there is none."""
    if _LIBC is None:
        raise LandlockUnavailable(
            f"Landlock is a Linux feature (this is {sys.platform})"
        )
    try:
        return _syscall(
            _CREATE_RULESET, None, ctypes.c_size_t(0), _CREATE_RULESET_VERSION
        )
    except OSError as error:
        if error.errno == errno.EOPNOTSUPP:
            raise LandlockUnavailable(
                "the kernel has Landlock but it is not enabled (add 'landlock' to "
                "the lsm= boot parameter)"
            ) from None
        if error.errno == errno.ENOSYS:
            raise LandlockUnavailable(
                "the kernel has no Landlock (it needs Linux 5.13 or later, built "
                "with CONFIG_SECURITY_LANDLOCK)"
            ) from None
        raise LandlockUnavailable(f"Landlock cannot be used: {error}") from None


def handled_rights(abi: int) -> int:
    """Every right of writing that the kernel of ``abi`` can refuse."""
    rights = _WRITE_FILE | _REMOVE_DIR | _REMOVE_FILE | _MAKE
    if abi >= 2:
        rights |= _REFER
    if abi >= 3:
        rights |= _TRUNCATE
    return rights


class Confinement:
    """A prepared ruleset: a command given it may write only beneath
    :attr:`writable` (and the temporary directory and the harmless devices).
    Close it once the command has started."""

    __slots__ = ("_fd", "writable")

    def __init__(self, fd: int, writable: tuple[str, ...]) -> None:
        self._fd = fd
        self.writable = writable

    def apply(self) -> None:
        """In the child, before it executes the command: confine it for good."""
        assert _LIBC is not None
        if _LIBC.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS)")
        if _LIBC.syscall(ctypes.c_long(_RESTRICT_SELF), self._fd, 0) != 0:
            raise OSError(ctypes.get_errno(), "landlock_restrict_self")

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1


def write_confinement(writable: tuple[str, ...]) -> Confinement:
    """A ruleset letting a command write beneath the directories ``writable``, the
    temporary directory and the devices every command writes to, and nowhere else;
    :class:`LandlockUnavailable` when the kernel cannot; :class:`OSError` when a
    directory of ``writable`` cannot be opened."""
    handled = handled_rights(abi_version())
    attr = _RulesetAttr(handled)
    fd = _syscall(
        _CREATE_RULESET, ctypes.byref(attr), ctypes.c_size_t(ctypes.sizeof(attr)), 0
    )
    confinement = Confinement(fd, writable)
    try:
        for directory in writable:
            _allow(fd, directory, handled)
        temporary = os.path.realpath(tempfile.gettempdir())
        if temporary != os.sep:  # TMPDIR=/ would open everything
            _allow(fd, temporary, handled)
        for directory in _DEVICE_DIRECTORIES:
            _allow(fd, directory, handled, missing_ok=True)
        for device in _DEVICES:
            _allow(fd, device, handled & (_WRITE_FILE | _TRUNCATE), missing_ok=True)
    except BaseException:
        confinement.close()
        raise
    return confinement


def _allow(ruleset: int, path: str, rights: int, missing_ok: bool = False) -> None:
    try:
        beneath = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except OSError:
        if missing_ok:
            return
        raise
    try:
        if not stat.S_ISDIR(os.fstat(beneath).st_mode):
            rights &= _WRITE_FILE | _TRUNCATE  # a file takes only file rights
        attr = _PathBeneathAttr(rights, beneath)
        _syscall(_ADD_RULE, ruleset, _RULE_PATH_BENEATH, ctypes.byref(attr), 0)
    finally:
        os.close(beneath)
