"""Cutting a broker's ``call`` answer down to ``max_output_chars``.

With ``max_output_chars`` set, a ``call`` answer whose size (``len(json.dumps(answer,
ensure_ascii=False))``) exceeds it is replaced by the wrapper ``{"truncated": true,
"original_chars", "max_output_chars", "note", "result"}``, whose own size fits the
limit whenever that is possible at all; ``result`` is the answer, cut. Its
structure is kept: ``path`` and ``isError`` are never cut, nor are the keys of a
content item. Inside ``content`` and ``metadata``:

1. long strings are cut first, down to 100 characters (a tenth of the limit when
   that is less, but not below 16); a cut string ends in ``… [+N chars]``;
2. if that is not enough, long lists keep their first items and end in the
   string ``"… [+N items]"`` (``content`` itself keeps at least one item);
3. then objects (in metadata and JSON text) keep their first keys and a last key
   ``"…"`` saying how many were left out;
4. then strings are cut below that floor;

and each limit is then raised again, keys first, then items, then strings, as far
as the budget allows. A text item whose text is a JSON object or array (an HTTP
tool's JSON body) is cut the same way inside that JSON, which is re-serialized
compactly, so it stays valid JSON. Image and audio data are replaced whole by a
marker (half a base64 blob is of no use). If even the bare structure does not fit,
``result`` is the start of the answer's JSON text; under about 180 characters
``result`` is null (and under about 120 not even that wrapper fits). ``note`` says what was cut and how much. The
same answer and limit always give the same output.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

_FLOOR_STRING = 100
"""Strings are cut down to this many characters (less for tiny limits) before any
list is shortened."""


def _size(value: Any) -> int:
    return len(json.dumps(value, ensure_ascii=False))


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


@dataclass
class _Cuts:
    """What one truncation pass left out."""

    strings: int = 0
    chars: int = 0
    lists: int = 0
    items: int = 0
    items_kept: int = 0
    objects: int = 0
    keys: int = 0
    media: int = 0
    json_texts: int = 0

    def note(self, limits: _Limits) -> str:
        parts: list[str] = []
        if self.strings:
            parts.append(
                f"{_plural(self.strings, 'string')} to {limits.string} chars "
                f"({self.chars} chars left out)"
            )
        if self.lists:
            parts.append(
                f"{_plural(self.lists, 'list')} to at most "
                f"{_plural(self.items_kept, 'item')} ({self.items} items left out)"
            )
        if self.objects:
            parts.append(
                f"{_plural(self.objects, 'object')} to {_plural(limits.keys, 'key')} "
                f"({self.keys} keys left out)"
            )
        if self.media:
            parts.append(f"the data of {_plural(self.media, 'image/audio item')}")
        note = f"cut {'; '.join(parts)}"
        if self.json_texts:
            note += (
                f"; the JSON in {_plural(self.json_texts, 'text item')} was cut "
                "inside and re-serialized compactly"
            )
        return f"{note}. '…' marks each cut."


@dataclass(frozen=True)
class _Limits:
    string: int
    items: int
    keys: int


def _shortened(kept: list[Any], total: int, cuts: _Cuts) -> list[Any]:
    """``kept`` (the first items of a list of ``total``), with a marker if short."""
    if total > len(kept):
        cuts.lists += 1
        cuts.items += total - len(kept)
        cuts.items_kept = max(cuts.items_kept, len(kept))
        kept.append(f"… [+{_plural(total - len(kept), 'item')}]")
    return kept


def _cut(value: Any, limits: _Limits, cuts: _Cuts) -> Any:
    """``value`` with long strings, lists and objects shortened to ``limits``."""
    if isinstance(value, str):
        left_out = len(value) - limits.string
        marker = f"… [+{left_out} chars]"
        if left_out <= len(marker):
            return value  # cutting would not make it shorter
        cuts.strings += 1
        cuts.chars += left_out
        return value[: limits.string] + marker
    if isinstance(value, list):
        kept = [_cut(item, limits, cuts) for item in value[: limits.items]]
        return _shortened(kept, len(value), cuts)
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for index, (key, item) in enumerate(value.items()):
            if index == limits.keys:
                cuts.objects += 1
                cuts.keys += len(value) - limits.keys
                marker = "…"
                while marker in out:
                    marker += "…"
                out[marker] = f"+{_plural(len(value) - limits.keys, 'key')}"
                break
            out[key] = _cut(item, limits, cuts)
        return out
    return value


def json_text(text: str) -> Any:
    """The JSON object or array that ``text`` holds, or None."""
    stripped = text.strip()
    if not stripped or stripped[0] not in "[{":
        return None
    try:
        value = json.loads(stripped)
    except ValueError:
        return None
    return value if isinstance(value, (dict, list)) else None


def _cut_content(item: Any, parsed: Any, limits: _Limits, cuts: _Cuts) -> Any:
    """One content item, cut: its keys are kept, whatever the limits."""
    if not isinstance(item, dict):
        return _cut(item, limits, cuts)
    kind = item.get("type")
    if kind == "text" and isinstance(item.get("text"), str):
        if parsed is not None:
            before = dataclasses.astuple(cuts)
            value = _cut(parsed, limits, cuts)
            if dataclasses.astuple(cuts) == before:
                return item
            cuts.json_texts += 1
            text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
            return {**item, "text": text}
        return {**item, "text": _cut(item["text"], limits, cuts)}
    if kind in ("image", "audio") and isinstance(item.get("data"), str):
        data: str = item["data"]
        if len(data) <= limits.string:
            return item
        cuts.media += 1
        return {**item, "data": f"… [{len(data)} chars of base64 {kind} data]"}
    return {key: _cut(value, limits, cuts) for key, value in item.items()}


def _longest(value: Any) -> tuple[int, int, int]:
    """The longest string, list and object in ``value``."""
    if isinstance(value, str):
        return len(value), 0, 0
    if isinstance(value, (list, dict)):
        items = value if isinstance(value, list) else list(value.values())
        parts = [_longest(item) for item in items]
        strings = max((p[0] for p in parts), default=0)
        lists = max((p[1] for p in parts), default=0)
        keys = max((p[2] for p in parts), default=0)
        if isinstance(value, list):
            return strings, max(lists, len(value)), keys
        return strings, lists, max(keys, len(value))
    return 0, 0, 0


def truncate_answer(answer: dict[str, Any], max_chars: int) -> dict[str, Any]:
    """``answer`` (a ``call`` answer) if it fits in ``max_chars``; else the
    truncation wrapper described in the module's docstring, as full as fits."""
    original = _size(answer)
    if original <= max_chars:
        return answer
    content = answer.get("content")
    content = content if isinstance(content, list) else []
    metadata = answer.get("metadata")
    parsed = [
        (
            json_text(item["text"])
            if isinstance(item, dict) and isinstance(item.get("text"), str)
            else None
        )
        for item in content
    ]

    def wrapped(limits: _Limits) -> dict[str, Any]:
        cuts = _Cuts()
        # The content list keeps at least one item: dropping all of it says nothing.
        kept = [
            _cut_content(item, value, limits, cuts)
            for item, value in zip(
                content[: max(limits.items, 1)], parsed, strict=False
            )
        ]
        kept = _shortened(kept, len(content), cuts)
        result = {**answer, "content": kept, "metadata": _cut(metadata, limits, cuts)}
        return _wrapper(original, max_chars, cuts.note(limits), result)

    def fits(limits: _Limits) -> bool:
        return _size(wrapped(limits)) <= max_chars

    def widest(make: Callable[[int], _Limits], low: int, high: int) -> int:
        """The largest n in [low, high] for which make(n) fits (make(low) does)."""
        while low < high:
            middle = (low + high + 1) // 2
            if fits(make(middle)):
                low = middle
            else:
                high = middle - 1
        return low

    longest = [_longest(content), _longest(metadata)]
    longest += [_longest(value) for value in parsed if value is not None]
    max_string = max(p[0] for p in longest)
    max_items = max(p[1] for p in longest)
    max_keys = max(p[2] for p in longest)
    floor = min(max(max_chars // 10, 16), _FLOOR_STRING, max_string)

    # Find the first stage that fits: strings cut to the floor; then lists
    # shortened; then objects; then strings below the floor.
    if fits(_Limits(floor, max_items, max_keys)):
        limits = _Limits(floor, max_items, max_keys)
    elif fits(_Limits(floor, 0, max_keys)):
        items = widest(lambda n: _Limits(floor, n, max_keys), 0, max_items)
        limits = _Limits(floor, items, max_keys)
    elif fits(_Limits(floor, 0, 0)):
        keys = widest(lambda n: _Limits(floor, 0, n), 0, max_keys)
        limits = _Limits(floor, 0, keys)
    elif fits(_Limits(0, 0, 0)):
        limits = _Limits(0, 0, 0)
    else:
        return _last_resort(answer, original, max_chars)
    # Then give back what the budget still allows: keys, items, strings.
    string, items, keys = limits.string, limits.items, limits.keys
    keys = widest(lambda n: _Limits(string, items, n), keys, max_keys)
    items = widest(lambda n: _Limits(string, n, keys), items, max_items)
    string = widest(lambda n: _Limits(n, items, keys), string, max_string)
    return wrapped(_Limits(string, items, keys))


def _wrapper(original: int, max_chars: int, note: str, result: Any) -> dict[str, Any]:
    return {
        "truncated": True,
        "original_chars": original,
        "max_output_chars": max_chars,
        "note": note,
        "result": result,
    }


def _last_resort(
    answer: dict[str, Any], original: int, max_chars: int
) -> dict[str, Any]:
    """Not even the answer's bare structure fits: the start of its JSON text."""
    text = json.dumps(answer, ensure_ascii=False)
    note = "only the start of the JSON text fits"

    def wrapped(length: int) -> dict[str, Any]:
        return _wrapper(
            original, max_chars, note, f"{text[:length]}… [+{len(text) - length} chars]"
        )

    if _size(wrapped(0)) > max_chars:
        return _wrapper(original, max_chars, "the limit is too small", None)
    low, high = 0, len(text)
    while low < high:
        middle = (low + high + 1) // 2
        if _size(wrapped(middle)) <= max_chars:
            low = middle
        else:
            high = middle - 1
    return wrapped(low)
