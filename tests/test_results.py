"""The fast result constructors build exactly what pydantic builds."""

from __future__ import annotations

import copy
import pickle
from typing import Any

from hypothesis import given
from hypothesis import strategies as st
from mcigen_runtime.results import (
    TextContent,
    ToolResult,
    error_result,
    text_content,
    text_result,
    tool_result,
)
from pydantic import BaseModel, ConfigDict


def test_fast_results_equal_validated_ones() -> None:
    built = text_result("hello", {"k": 1})
    validated = ToolResult(content=[TextContent(text="hello")], metadata={"k": 1})
    assert built == validated
    assert built.model_dump() == validated.model_dump()
    assert built.model_dump_json() == validated.model_dump_json()
    assert built.model_fields_set == validated.model_fields_set | {"isError"}
    assert repr(built.content[0]) == repr(TextContent(text="hello"))
    assert error_result("no").isError is True
    assert error_result("no").text == "no"


def test_fast_results_behave_as_models() -> None:
    result = text_result("a")
    result.content.append(text_content("b"))
    assert result.text == "a\nb"
    copy = result.model_copy(update={"isError": True})
    assert (copy.isError, result.isError) == (True, False)
    assert ToolResult.model_validate(result.model_dump()) == result
    other = text_result("a")
    other.metadata = {"changed": True}
    assert text_result("a").metadata is None
    assert "metadata" in other.model_fields_set


class _Holder(BaseModel):
    result: ToolResult


class _Revalidating(BaseModel):
    model_config = ConfigDict(revalidate_instances="always")
    result: ToolResult


_metadata = st.none() | st.dictionaries(
    st.text(max_size=5), st.recursive(st.none() | st.integers() | st.text(), st.lists)
)


@given(text=st.text(), metadata=_metadata, is_error=st.booleans())
def test_fast_results_are_the_validated_ones_in_every_use(
    text: str, metadata: dict[str, Any] | None, is_error: bool
) -> None:
    """The builders set ``__dict__`` alone; every way a user or pydantic reaches a
    result (dumps, equality, copies, pickles, a result inside another model) sees
    what a validated result shows, its fields set and its empty extra included."""
    fast = error_result(text, metadata) if is_error else text_result(text, metadata)
    slow = ToolResult.model_validate(
        {
            "content": [{"type": "text", "text": text}],
            "isError": is_error,
            "metadata": metadata,
        }
    )
    assert fast == slow and slow == fast
    for unset in (False, True):
        assert fast.model_dump(exclude_unset=unset) == slow.model_dump(
            exclude_unset=unset
        )
        assert fast.model_dump_json(exclude_unset=unset) == slow.model_dump_json(
            exclude_unset=unset
        )
    assert fast.model_fields_set == slow.model_fields_set
    assert fast.content[0].model_fields_set == slow.content[0].model_fields_set
    assert (fast.model_extra, fast.__pydantic_private__) == (None, None)
    assert repr(fast) == repr(slow)
    assert fast.__getstate__() == slow.__getstate__()
    assert pickle.dumps(fast) == pickle.dumps(slow)
    assert pickle.loads(pickle.dumps(fast)) == slow
    assert copy.copy(fast) == slow and copy.deepcopy(fast) == slow
    assert _Holder(result=fast).result is fast
    assert (
        _Holder(result=fast).model_dump_json() == _Holder(result=slow).model_dump_json()
    )
    assert _Revalidating(result=fast) == _Revalidating(result=slow)
    assert fast.model_copy(update={"isError": not is_error}) == slow.model_copy(
        update={"isError": not is_error}
    )
    assert tool_result([text_content(text)], is_error, metadata) == slow


def test_a_fast_result_keeps_its_own_fields_set() -> None:
    """The fields set a builder leaves unstored become the instance's own set on
    first use: a change to one result's is nobody else's."""
    first, second = text_result("a"), text_result("a")
    first.metadata = {"changed": True}
    item = first.content[0]
    item.meta = {"m": 1}
    assert second.model_fields_set == {"content", "isError", "metadata"}
    assert second.content[0].model_fields_set == {"type", "text"}
    assert item.model_dump_json() == '{"_meta":{"m":1},"type":"text","text":"a"}'
    assert TextContent(text="b").model_fields_set == {"text"}
