"""Every string of a document must be Unicode text that UTF-8 can hold.

JSON's ``\\ud800`` escape (and YAML's) can spell a lone surrogate: Python keeps it in
a ``str``, but no UTF-8 file, no generated module and no MCP message can carry it.
"""

from __future__ import annotations

from .context import At, Context
from .pointers import child_pointer


def check_unicode_text(ctx: Context, data: object) -> None:
    """An error at every key and string value holding a lone surrogate."""
    pending: list[tuple[str, object]] = [("", data)]
    while pending:
        pointer, value = pending.pop()
        if isinstance(value, str):
            _check(ctx, At(pointer, "value"), value, on_key=False)
        elif isinstance(value, dict):
            for key, member in value.items():
                at = At(child_pointer(pointer, key), "key")
                _check(ctx, at, str(key), on_key=True)
                pending.append((at.pointer, member))
        elif isinstance(value, list):
            pending.extend(
                (child_pointer(pointer, index), item)
                for index, item in enumerate(value)
            )


def _check(ctx: Context, at: At, text: str, on_key: bool) -> None:
    if text.isascii():
        return
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as error:
        surrogate = f"\\u{ord(text[error.start]):04x}"
        ctx.error(
            at,
            f"this {at.label} holds a lone surrogate ({surrogate}), which is not "
            "Unicode text: no UTF-8 file or MCP message can carry it",
            on_key=on_key,
        )
