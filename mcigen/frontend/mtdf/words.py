"""Ahma's ``split_whitespace``: a command's words are what lies between runs of
Unicode White_Space. Python's ``str.split()`` also splits at the information
separators U+001C to U+001F, which Rust (and so Ahma) keeps inside a word."""

from __future__ import annotations

import re

_WHITE_SPACE = re.compile(r"[^\S\x1c-\x1f]+")


def split_words(text: str) -> list[str]:
    return [word for word in _WHITE_SPACE.split(text) if word]
