"""What every document must be, whatever its format."""

from __future__ import annotations

from ..diagnostics import quoted
from .context import Context
from .unicode_text import check_unicode_text


def check_text(ctx: Context) -> None:
    """Keys given once, strings that are Unicode text."""
    doc = ctx.doc
    for duplicate in doc.duplicate_keys:
        ctx.diagnostics.warning(
            doc.index_location(duplicate.key, duplicate.pointer),
            f"duplicate key {quoted(duplicate.name)}; only the last value is used",
        )
    check_unicode_text(ctx, doc.data)
