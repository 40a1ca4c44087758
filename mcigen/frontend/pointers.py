"""JSON pointers (RFC 6901), the keys of the source map."""

from __future__ import annotations


def child_pointer(parent: str, key: object) -> str:
    """The pointer of ``key`` (an object key or an array index) below ``parent``."""
    segment = str(key).replace("~", "~0").replace("/", "~1")
    return f"{parent}/{segment}"


def parent_pointer(pointer: str) -> str:
    return pointer[: pointer.rfind("/")] if pointer else ""
