"""The fast result constructors build exactly what pydantic builds."""

from __future__ import annotations

import copy
import json
import pickle
import subprocess
import sys
from typing import Any

import pytest
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


FIRST_USE = """
import inspect, json, sys
from mcigen_runtime.client import ExecutionResult, Tool
from mcigen_runtime.results import TextContent, ToolResult, text_result

models = (ToolResult, TextContent, ExecutionResult, Tool)
built_at_import = [m.__name__ for m in models if m.__pydantic_complete__]
plugins_looked_up = "pydantic.plugin._loader" in sys.modules
first = sys.argv[1]
if first == "signature":
    shape = [str(inspect.signature(m)) for m in models]
answer = ExecutionResult.model_construct(result=text_result("hi", {"k": 1}))
dumped = answer.model_dump_json()
again = ExecutionResult.model_validate_json(dumped)
if first == "dump":
    shape = [str(inspect.signature(m)) for m in models]
print(json.dumps({
    "built_at_import": built_at_import,
    "plugins_looked_up": plugins_looked_up,
    "dumped": dumped,
    "again": again == answer,
    "shape": shape,
}))
"""


@pytest.mark.parametrize("first", ["signature", "dump"])
def test_result_models_are_built_on_first_use_with_their_signatures(first: str) -> None:
    """Importing the result and client models builds none of them (nor makes
    pydantic look for plugins among the installed distributions: a third of a
    cached client's start); whichever comes first, their signature or their first
    dump, each shows its fields as a built model does and dumps as one."""
    done = subprocess.run(
        [sys.executable, "-c", FIRST_USE, first],
        capture_output=True,
        text=True,
        check=True,
    )
    answer = json.loads(done.stdout)
    assert answer["built_at_import"] == []
    assert answer["plugins_looked_up"] is False
    assert answer["dumped"] == (
        '{"result":{"content":[{"type":"text","text":"hi"}],"isError":false,'
        '"metadata":{"k":1}},"jsonrpc":null,"id":null}'
    )
    assert answer["again"] is True
    content = (
        "content: list[mcigen_runtime.results.TextContent | "
        "mcigen_runtime.results.ImageContent | mcigen_runtime.results.AudioContent | "
        "mcigen_runtime.results.EmbeddedResource | "
        "mcigen_runtime.results.ResourceLink]"
    )
    assert answer["shape"] == [
        f"(*, {content}, isError: bool = False, "
        "metadata: dict[str, typing.Any] | None = None) -> None",
        "(*, _meta: dict[str, typing.Any] | None = None, "
        "type: Literal['text'] = 'text', text: str, "
        "annotations: mcigen_runtime.results.Annotations | None = None) -> None",
        "(*, result: mcigen_runtime.results.ToolResult, jsonrpc: str | None = None, "
        "id: int | None = None) -> None",
        "(*, name: str, disabled: bool = False, "
        "annotations: mcigen_runtime.tool_models.Annotations | None = None, "
        "description: str | None = None, "
        "inputSchema: dict[str, typing.Any] | None = None, "
        "execution: mcigen_runtime.tool_models.Execution, tags: list[str] = <factory>, "
        "toolset_source: str | None = None) -> None",
    ]
