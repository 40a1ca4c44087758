"""The fast result constructors build exactly what pydantic builds."""

from __future__ import annotations

from mcigen_runtime.results import (
    TextContent,
    ToolResult,
    error_result,
    text_content,
    text_result,
)


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
