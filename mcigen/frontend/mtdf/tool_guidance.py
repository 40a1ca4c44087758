"""``tool_guidance.json`` beside the tool files (the older MTDF guide): guidance
blocks that add to or replace Ahma's built-in ones."""

from __future__ import annotations

from pathlib import Path

from ...diagnostics import Diagnostics, quoted
from ..context import type_name
from ..pointers import child_pointer
from ..source import read_source
from .guidance_blocks import BUILT_IN_GUIDANCE_BLOCKS
from .layout import GUIDANCE_FILE

_BLOCKS = "guidance_blocks"
_OTHER_SECTIONS = ("templates", "legacy_guidance")
"""Sections the guide documents that do not change a tool's description."""


def guidance_blocks(folder: Path, diagnostics: Diagnostics) -> dict[str, str]:
    """The built-in blocks, with those of ``folder/tool_guidance.json`` (when it
    exists) over them; the file's problems go to ``diagnostics``."""
    blocks = dict(BUILT_IN_GUIDANCE_BLOCKS)
    file = folder / GUIDANCE_FILE
    if not file.is_file():
        return blocks
    doc, reading = read_source(file, str(file))
    diagnostics.extend(reading.items)
    if doc is None:
        return blocks
    data = doc.data
    if not isinstance(data, dict):
        diagnostics.error(
            doc.location(""),
            f"{GUIDANCE_FILE} must be an object, not {type_name(data)}",
        )
        return blocks
    for key in data:
        if key != _BLOCKS and key not in _OTHER_SECTIONS:
            diagnostics.warning(
                doc.key_location(child_pointer("", key)),
                f"unknown section {quoted(key)} in {GUIDANCE_FILE}; expected {quoted(_BLOCKS)}",
            )
    file_blocks = data.get(_BLOCKS, {})
    pointer = child_pointer("", _BLOCKS)
    if not isinstance(file_blocks, dict):
        diagnostics.error(
            doc.location(pointer),
            f"{quoted(_BLOCKS)} must be an object of texts, not {type_name(file_blocks)}",
        )
        return blocks
    for key, text in file_blocks.items():
        if isinstance(text, str):
            blocks[key] = text
        else:
            diagnostics.error(
                doc.location(child_pointer(pointer, key)),
                f"guidance block {quoted(key)} must be a text, not {type_name(text)}",
            )
    return blocks
