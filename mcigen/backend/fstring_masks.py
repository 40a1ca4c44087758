"""black on code whose f-strings are handed to it as plain strings.

black parses every f-string into its fields, only to turn it back into one string
that it neither splits nor rewrites. That parse is most of black's time on code
made of templates: a template of 20,000 placeholders took 1.5 s to format as
f-strings against 0.2 s as plain strings. A plain string of the same length, quotes
and characters is laid out the same way, so each f-string black would not touch
anyway (one line, double quotes, no backslash) goes in as one, and comes back out
as it was.

Not masked: an f-string where a plain string could be a docstring (black treats
those apart); only one right after ``(``, ``[``, ``{``, ``,`` or ``=`` is. When
black's output does not hold every masked string unchanged and in its place among
the strings, the caller formats the original instead.
"""

from __future__ import annotations

from .shapes import TOKEN

_AFTER = frozenset("([{,=")
"""What may come right before a masked f-string: a plain string there is an
argument, an element or a value, never a statement."""


def masked(text: str) -> tuple[str, dict[int, str]]:
    """``text`` with its maskable f-strings made plain strings, and those f-strings
    by their index among the string tokens of ``text``."""
    parts: list[str] = []
    originals: dict[int, str] = {}
    kept = 0
    index = -1
    token_end = 0  # of the token before this one
    for match in TOKEN.finditer(text):
        before = text[token_end : match.start()].rstrip()
        token_end = match.end()
        if match.lastgroup != "string":
            continue
        index += 1
        string = match["string"]
        if (
            text[match.start() : match.start("string")] != "f"
            or string.startswith('"""')
            or not string.startswith('"')
            or "\\" in string
            or not before
            or before[-1] not in _AFTER
        ):
            continue
        originals[index] = match.group()
        parts.append(text[kept : match.start()])
        parts.append(f'{string[:-1]}_"')  # as long as the f-string
        kept = match.end()
    parts.append(text[kept:])
    return "".join(parts), originals


def unmasked(formatted: str, masked_text: str, originals: dict[int, str]) -> str | None:
    """black's output ``formatted`` for ``masked_text`` with the f-strings put back;
    None when black moved or changed one of the strings that stand for them."""
    sent = [m.group() for m in TOKEN.finditer(masked_text) if m.lastgroup == "string"]
    came = [m for m in TOKEN.finditer(formatted) if m.lastgroup == "string"]
    if len(sent) != len(came):
        return None
    parts: list[str] = []
    kept = 0
    for index, original in sorted(originals.items()):
        match = came[index]
        if match.group() != sent[index]:
            return None
        parts.append(formatted[kept : match.start()])
        parts.append(original)
        kept = match.end()
    parts.append(formatted[kept:])
    return "".join(parts)
