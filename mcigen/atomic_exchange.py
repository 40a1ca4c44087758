"""Swapping two directory entries in one step, where the system can.

Linux has ``renameat2(..., RENAME_EXCHANGE)`` (glibc 2.28 and later export it);
Python does not wrap it, so it is called through ctypes.
"""

from __future__ import annotations

import ctypes
import errno
import os
import sys
from collections.abc import Callable
from functools import cache
from pathlib import Path

_AT_FDCWD = -100
_RENAME_EXCHANGE = 2
# The kernel or the file system cannot exchange: fall back, as if there were no call.
_UNSUPPORTED = frozenset({errno.ENOSYS, errno.EINVAL, errno.EOPNOTSUPP})


def exchange(first: Path, second: Path) -> bool:
    """Atomically swap the existing paths ``first`` and ``second``; False (nothing
    done) where the system cannot, OSError when it could but failed."""
    renameat2 = _renameat2()
    if renameat2 is None:
        return False
    status = renameat2(
        _AT_FDCWD, os.fsencode(first), _AT_FDCWD, os.fsencode(second), _RENAME_EXCHANGE
    )
    if status == 0:
        return True
    error = ctypes.get_errno()
    if error in _UNSUPPORTED:
        return False
    raise OSError(error, os.strerror(error), str(first), None, str(second))


@cache
def _renameat2() -> Callable[..., int] | None:
    if sys.platform != "linux":
        return None
    function = getattr(ctypes.CDLL(None, use_errno=True), "renameat2", None)
    if function is None:
        return None
    function.argtypes = [
        ctypes.c_int,
        ctypes.c_char_p,
        ctypes.c_int,
        ctypes.c_char_p,
        ctypes.c_uint,
    ]
    function.restype = ctypes.c_int
    found: Callable[..., int] = function
    return found
