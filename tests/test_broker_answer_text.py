"""The text of a meta-tool's answer, written by json's C encoder made once, is
``json.dumps(answer, ensure_ascii=False)`` for any JSON data: what an MCP client
of the broker reads in the answer's text item. And a stdio line's arguments are
judged by ``writes_alike`` the same whether plain dicts or dict subclasses hold
them (its loop over a dict's items, which checks a string item without a call,
must read every mapping alike). A plain ``meta_call`` answer written from its
strings (``answer_json``) is both texts for any strings, and is not written when
one is no Unicode text."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given
from hypothesis import strategies as st
from mcigen_runtime.broker.answer_json import plain_answer_json
from mcigen_runtime.broker.meta_tools import answer_text
from mcigen_runtime.serve.wire import writes_alike
from pydantic_core import PydanticSerializationError, to_json

_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats()
    | st.text()
    | st.text(alphabet=st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF))
)
_DATA = st.recursive(
    _SCALARS,
    lambda inner: st.lists(inner, max_size=4)
    | st.dictionaries(st.text(max_size=5), inner, max_size=4),
    max_leaves=20,
)


@given(st.dictionaries(st.text(max_size=8), _DATA, max_size=5))
def test_the_answer_text_is_what_json_dumps_writes(answer: dict[str, Any]) -> None:
    assert answer_text(answer) == json.dumps(answer, ensure_ascii=False)


class _Dict(dict):  # type: ignore[type-arg]
    """A dict subclass, such as a caller may hand ``writes_alike``."""


def _general(value: Any) -> Any:
    if isinstance(value, dict):
        return _Dict({key: _general(item) for key, item in value.items()})
    if isinstance(value, list):
        return [_general(item) for item in value]
    return value


@given(st.dictionaries(st.text(max_size=8), _DATA, max_size=5))
def test_plain_dicts_are_judged_as_dict_subclasses_are(
    arguments: dict[str, Any],
) -> None:
    assert writes_alike(arguments) == writes_alike(_general(arguments))


def _nested(levels: int) -> Any:
    value: Any = "text"
    for _ in range(levels):
        value = {"k": value}
    return value


def test_a_string_one_level_past_the_deepest_is_refused() -> None:
    assert writes_alike(_nested(100)) and not writes_alike(_nested(101))


_STRINGS = st.text() | st.text(
    alphabet=st.characters(min_codepoint=0, max_codepoint=0x20)
    | st.sampled_from(
        [
            '"',
            "\\",
            "/",
            "\x7f",
            "\u2028",
            "\u2029",
            "\ufeff",
            "é",
            "\U0001f600",
            "\ud800",
        ]
    )
)


@given(_STRINGS, st.booleans(), st.lists(_STRINGS, max_size=3))
def test_a_plain_answer_is_written_as_json_and_pydantic_write_it(
    path: str, is_error: bool, texts: list[str]
) -> None:
    answer = {
        "path": path,
        "isError": is_error,
        "content": [{"type": "text", "text": text} for text in texts],
        "metadata": None,
    }
    written = plain_answer_json(answer)
    text = json.dumps(answer, ensure_ascii=False)
    result = {
        "content": [{"text": text, "type": "text"}],
        "isError": is_error,
        "structuredContent": answer,
    }
    try:
        expected = to_json(result).decode()
    except PydanticSerializationError:  # no Unicode text: left to the SDK's steps
        assert written is None
        return
    assert written == (text, expected)


def test_an_answer_with_metadata_or_other_content_is_not_written() -> None:
    plain = {"path": "/t", "isError": False, "content": [], "metadata": None}
    assert plain_answer_json(plain) is not None
    for changed in (
        {**plain, "metadata": {}},
        {**plain, "content": [{"type": "image", "data": "", "mimeType": "x"}]},
        {**plain, "content": [{"text": "a", "type": "text"}]},
        {"truncated": True, **plain},
    ):
        assert plain_answer_json(changed) is None
