"""A call renders at most its limit: a caller's loop bound of 10**12 gives an error
result saying so, quickly and in bounded memory, never a MemoryError; the limit is
the package's (``--limit``) unless the caller sets one (``limited``, ``Client``)."""

from __future__ import annotations

import importlib
import json
import tracemalloc
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from mcigen_runtime.executors.file.contents import render_file
from mcigen_runtime.templating.budget import OutputLimitError
from mcigen_runtime.templating.compiler import compile_renderer
from mcigen_runtime.templating.parser import parse_template

from ..conftest import built_package, run_mcigen, schema_of, text_tool, write_schema
from ..oracle import run_oracle

REPEAT = text_tool(
    "repeat",
    "@for(i in range(0, props.n)){{props.word}}@endfor",
    inputSchema={
        "type": "object",
        "properties": {"n": {"type": "integer"}, "word": {"type": "string"}},
        "required": ["n", "word"],
    },
)
DEEP = text_tool(  # deeper than one generated function holds: the budget is passed on
    "deep",
    "".join(f"@for(i{d} in range(0, props.n))" for d in range(12))
    + "x"
    + "@endfor" * 12,
    inputSchema={"type": "object", "properties": {"n": {"type": "integer"}}},
)
STRIPPED = text_tool(  # a loop inside a block whose whitespace is stripped
    "stripped",
    "@if(props.n)\n  @for(i in range(0, props.n))ab@endfor\n@endif",
    inputSchema={"type": "object", "properties": {"n": {"type": "integer"}}},
)


def _limited(package: ModuleType, **sizes: int) -> Any:
    """``from pkg.client import limited``: the caller's limits for calls inside."""
    return importlib.import_module(f"{package.__name__}.client").limited(**sizes)


@pytest.fixture(scope="module")
def pkg(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    work = tmp_path_factory.mktemp("limits")
    schema = write_schema(work, schema_of(REPEAT, DEEP, STRIPPED))
    with built_package(schema, work / "limited_pkg") as package:
        yield package


def test_a_huge_loop_bound_is_an_error_result_at_the_default_limit(pkg) -> None:  # type: ignore[no-untyped-def]
    result = pkg.repeat(n=10**6, word="x" * 1000)  # a gigabyte of text
    assert result.isError
    assert "exceeds the limit of 10485760 characters (text_output)" in result.text
    result = pkg.repeat(n=10**12, word="")  # refused before its first turn
    assert "exceed the limit of 10485760 turns (text_output)" in result.text
    result = pkg.repeat(n=10**20, word="")  # more turns than len() can give
    assert "exceed the limit of 10485760 turns (text_output)" in result.text


def test_a_loop_that_renders_nothing_still_stops(pkg) -> None:  # type: ignore[no-untyped-def]
    with _limited(pkg, text_output=10_000):
        result = pkg.repeat(n=10**12, word="")
    assert result.isError
    assert "exceed the limit of 10000 turns" in result.text


def test_output_up_to_the_limit_is_returned_whole(pkg) -> None:  # type: ignore[no-untyped-def]
    with _limited(pkg, text_output=100):
        assert pkg.repeat(n=50, word="ab").text == "ab" * 50
        assert pkg.repeat(n=51, word="ab").isError


def test_nested_and_stripped_loops_are_bounded(pkg) -> None:  # type: ignore[no-untyped-def]
    with _limited(pkg, text_output=1000):
        assert pkg.deep(n=1).text == "x"
        assert "(text_output)" in pkg.deep(n=10).text  # 10**12 turns
        # whitespace a block strips counts until it is stripped
        assert pkg.stripped(n=498).text == "ab" * 498
        assert pkg.stripped(n=501).isError


def test_the_client_sets_the_limit_for_its_calls(pkg) -> None:  # type: ignore[no-untyped-def]
    client = pkg.Client(limits={"text_output": 10})
    assert client.execute("repeat", {"n": 6, "word": "ab"}).result.isError
    assert not pkg.repeat(n=6, word="ab").isError
    with pytest.raises(TypeError, match="unknown limit 'text'"):
        pkg.Client(limits={"text": 10})


def test_the_package_limit_comes_from_the_build(tmp_path: Path) -> None:
    schema = write_schema(tmp_path, schema_of(REPEAT))
    out = tmp_path / "small_pkg"
    with built_package(schema, out, "--limit", "text_output=1KiB") as package:
        assert package.repeat(n=512, word="ab").text == "ab" * 512
        assert "limit of 1024 characters" in package.repeat(n=513, word="ab").text
        with _limited(package, text_output=2048):
            assert not package.repeat(n=1024, word="ab").isError
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["runtime"]["limits"]["text_output"] == 1024


def test_a_bad_limit_option_is_a_usage_error(tmp_path: Path) -> None:
    schema = write_schema(tmp_path, schema_of(REPEAT))
    result = run_mcigen("build", schema, "-o", tmp_path / "p", "--limit", "txt=1")
    assert result.returncode == 2
    assert "unknown limit 'txt'" in result.stderr
    result = run_mcigen(
        "build", schema, "-o", tmp_path / "p", "--limit", "file_size=lots"
    )
    assert result.returncode == 2
    assert "'lots' is not a size" in result.stderr


def test_a_file_template_stops_at_the_limit(tmp_path: Path) -> None:
    path = tmp_path / "loop.txt"
    path.write_text("@for(i in range(0, 1000))line {{i}}\n@endfor")
    with pytest.raises(OutputLimitError, match="limit of 4096 characters"):
        render_file(str(path), {"props": {}, "env": {}}, limit=4096)


def test_row50_mci_py_renders_what_the_limit_refuses(tmp_path: Path) -> None:
    fixed = text_tool("fixed", "@for(i in range(0, 2000))abcde@endfor")
    schema = write_schema(tmp_path, schema_of(fixed))
    (theirs,) = run_oracle(schema, [{"tool": "fixed", "props": {}, "env": {}}])
    assert theirs["result"]["content"][0]["text"] == "abcde" * 2000
    out = tmp_path / "row50_pkg"
    with built_package(schema, out, "--limit", "text_output=9999") as package:
        result = package.fixed()
    assert result.isError
    assert result.text == (
        "Template output exceeds the limit of 9999 characters (text_output): "
        "the output is not returned"
    )


def test_a_file_tool_renders_at_most_the_limit(tmp_path: Path) -> None:
    (tmp_path / "loop.md").write_text("@for(i in range(0, props.n))row {{i}}\n@endfor")
    tool = {
        "name": "rows",
        "inputSchema": {"type": "object", "properties": {"n": {"type": "integer"}}},
        "execution": {
            "type": "file",
            "path": "./loop.md",
            "enableTemplating": True,
        },
    }
    schema = write_schema(tmp_path, schema_of(tool))
    with built_package(schema, tmp_path / "rows_pkg") as package:
        assert package.rows(n=2).text == "row 0\nrow 1\n"
        assert "(text_output)" in package.rows(n=10**12).text
        assert "characters (text_output)" in package.rows(n=10**7).text
        with _limited(package, text_output=12):
            assert package.rows(n=2).text == "row 0\nrow 1\n"
            assert "limit of 12 characters" in package.rows(n=3).text


@pytest.mark.parametrize("depth", [1, 12])
def test_a_render_stops_as_its_text_passes_the_limit(depth: int) -> None:
    """Loops count what they render as they go, in line and in the functions that
    hold deep bodies (``depth`` 12): 100 MB refused at 1 MB never held much more."""
    inner = "".join(f"@for(j{d} in range(0, 1))" for d in range(depth - 1))
    template = (
        f"@for(i in range(0, 1000)){inner}[{{{{props.big}}}}]" + "@endfor" * depth
    )
    render = compile_renderer(parse_template(template, directives=True))
    context = {"props": {"big": "x" * 100_000}, "env": {}}
    tracemalloc.start()
    try:
        with pytest.raises(OutputLimitError, match="limit of 1000000 characters"):
            render(context, 1_000_000)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 10_000_000
