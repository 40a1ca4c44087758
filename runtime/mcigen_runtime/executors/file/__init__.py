"""The file executor: a file tool's file read at call time, checked on the
descriptor, bounded in size and, when templated, rendered (:mod:`.contents`).

Generated code reaches what it needs as this package's attributes, never in its
modules, which load with the first file call made.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import lazy_face

if TYPE_CHECKING:
    from .contents import file_call_async, file_contents

__all__ = ["file_call_async", "file_contents"]

__getattr__ = lazy_face(
    __name__,
    {name: ".contents" for name in __all__},
)
