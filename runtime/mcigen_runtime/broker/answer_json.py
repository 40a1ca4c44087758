"""A ``meta_call`` answer of plain text items and no metadata (a text tool's,
nearly every tool's) written out from its strings, each escaped once: its text,
as :func:`.meta_tools.answer_text` writes it, and the ``tools/call`` result that
carries it twice (as that text, and as ``structuredContent``), as the SDK's
pydantic writes it. A call answered inline (``serve/inline_calls``) so skips
json's encoder over the answer and pydantic's over the result, which held the
answer a second time.

``json`` (``ensure_ascii=False``) and pydantic-core write a string of Unicode
text alike: ``"``, ``\\`` and the control characters escaped, the same way
(``\\n``, ``\\u001f``), nothing else. So json's escaping serves both; a string
that is no Unicode text (a lone surrogate), which pydantic refuses to write,
makes the answer one this module does not write (``tests/test_broker_answer_text.py``
holds both texts to the two encoders for any strings).
"""

from __future__ import annotations

from json.encoder import encode_basestring
from typing import Any

from ..edge.json_text import unicode_text

_PLAIN_KEYS = ["path", "isError", "content", "metadata"]
"""The keys of a ``call`` answer, in their order, neither truncated nor wrapped."""

_PLAIN_ITEM = ["type", "text"]


def plain_answer_json(answer: dict[str, Any]) -> tuple[str, str] | None:
    """``(text, result)``: ``answer``'s text (``json.dumps(answer,
    ensure_ascii=False)``) and the ``tools/call`` result of it as the SDK writes
    it (``content`` the text, ``isError``, ``structuredContent`` the answer);
    None unless the answer's content is plain text items, its metadata None and
    its every string Unicode text."""
    if list(answer) != _PLAIN_KEYS or answer["metadata"] is not None:
        return None
    path, is_error = answer["path"], answer["isError"]
    if (
        type(path) is not str
        or type(is_error) is not bool
        or not (path.isascii() or unicode_text(path))
    ):
        return None
    spaced: list[str] = []
    compact: list[str] = []
    for item in answer["content"]:  # a loop, not comprehensions: no calls
        if type(item) is not dict or list(item) != _PLAIN_ITEM:
            return None
        text = item["text"]
        if (
            item["type"] != "text"
            or type(text) is not str
            or not (text.isascii() or unicode_text(text))
        ):
            return None
        quoted_text = encode_basestring(text)
        spaced.append(f'{{"type": "text", "text": {quoted_text}}}')
        compact.append(f'{{"type":"text","text":{quoted_text}}}')
    flag = "true" if is_error else "false"
    quoted = encode_basestring(path)
    whole = (
        f'{{"path": {quoted}, "isError": {flag}, "content": [{", ".join(spaced)}], '
        '"metadata": null}'
    )
    structured = (
        f'{{"path":{quoted},"isError":{flag},"content":[{",".join(compact)}],'
        '"metadata":null}'
    )
    result = (
        f'{{"content":[{{"text":{encode_basestring(whole)},"type":"text"}}],'
        f'"isError":{flag},"structuredContent":{structured}}}'
    )
    return whole, result
