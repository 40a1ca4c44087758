"""black gets a build's f-strings as plain strings (``backend/fstring_masks.py``, issue
33): with hostile text in the literal parts of those f-strings, a whole build still
gives what plain black gives, every module parses, and the text arrives unchanged
when the tool runs."""

from __future__ import annotations

import ast
import itertools
import json
import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any
from unittest import mock

import black
import pytest
from hypothesis import example, given, reject, settings
from hypothesis import strategies as st
from mcigen_runtime.templating.compiler import compile_renderer
from mcigen_runtime.templating.lookup import TemplateRuntimeError
from mcigen_runtime.templating.parser import parse_template

from mcigen import backend
from mcigen.backend import formatting, fstring_masks
from mcigen.output import write_package
from mcigen.pipeline import compile_schema

from .support import BUILDS, every_module_imported, importable_from

_PIECES = (
    '"',
    "'",
    '"""',
    "'''",
    "\\",
    "\\n",
    "\n",
    "\r",
    "\x00",
    "\u2028",
    "\u2029",
    "\x85",
    "{",
    "}",
    "{{",
    "}}",
    "#",
    'f"{x}"',
    "f'{y!r:>{z}}'",
    "{value_1}",
    '", """',
    "__import__('os').system('id')",
    "中文",
    " ",
    "w0",
)
hostile = st.lists(st.sampled_from(_PIECES) | st.text(max_size=3), max_size=8).map(
    "".join
)
_SYNTAX = re.compile(r"\{\{|\}\}|\{!!|!!\}|@")
"""What the template language reads: text without it is rendered as it is."""

_COUNTER = itertools.count()


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    with importable_from(tmp_path_factory.mktemp("masks")) as directory:
        yield directory


def _tool(index: int, before: str, after: str, description: str) -> dict[str, Any]:
    return {
        "name": f"tool_{index}",
        "description": description,
        "inputSchema": {
            "type": "object",
            "properties": {"value": {"type": "string", "default": after}},
            "required": ["value"],
        },
        "execution": {"type": "text", "text": f"{before} {{{{props.value}}}} {after}"},
    }


def _whole_black(sources: list[str], known: object) -> list[str]:
    return [black.format_str(s, mode=formatting._MODE) for s in sources]


@settings(BUILDS, max_examples=60)
@example(texts=[("", "{{0}}", "")], value="")  # a placeholder of no path (CI run 11)
@given(
    texts=st.lists(st.tuples(hostile, hostile, hostile), min_size=1, max_size=3),
    value=hostile,
)
def test_masked_builds_are_plain_blacks_and_keep_hostile_text(
    workspace: Path, texts: list[tuple[str, str, str]], value: str
) -> None:
    package = f"masks_{next(_COUNTER)}"
    tools = [_tool(i, *text) for i, text in enumerate(texts)]
    document = {
        "schemaVersion": "1.0",
        "metadata": {"name": package, "description": "masks"},
        "tools": tools,
    }
    schema = workspace / f"{package}.mci.json"
    schema.write_text(json.dumps(document), encoding="utf-8")
    output = workspace / package
    formatted: list[tuple[list[str], list[str]]] = []

    def format_modules(
        sources: list[str], known: Mapping[str, str] | None
    ) -> list[str]:
        result: list[str] = masked(sources, known)
        formatted.append((sources, result))
        return result

    masked = backend.format_modules  # type: ignore[attr-defined]  # patched there
    with (
        mock.patch.dict("os.environ", {"MCIGEN_CACHE_DIR": ""}),
        mock.patch.object(backend, "format_modules", format_modules),
    ):
        files, diagnostics = compile_schema(schema, output, package)
    if files is None:  # braces that make a placeholder of no path
        assert diagnostics.has_errors
        reject()
    # The same sources, formatted by plain black: the same bytes.
    assert formatted and all(
        result == _whole_black(sources, None) for sources, result in formatted
    )
    for name, content in files.items():
        if name.endswith(".py"):
            ast.parse(content)

    write_package(files, output, package)
    with every_module_imported(package) as imported:
        for index, (before, after, _) in enumerate(texts):
            template = tools[index]["execution"]["text"]
            render = compile_renderer(parse_template(template))
            called = getattr(imported, f"tool_{index}")(value=value)
            try:
                rendered = render({"props": {"value": value}}, 10**9)
            except TemplateRuntimeError as error:  # such as {{0}}: no such path
                assert called.isError and called.text == str(error)
                continue
            assert called.text == rendered
            result = called.text
            if not _SYNTAX.search(before + after):
                assert result == f"{before} {value} {after}"


def test_hostile_text_black_would_keep_goes_masked_and_comes_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The property above tests the masks, not plain black: text that stays an
    f-string without backslash is masked, and the result is black's."""
    monkeypatch.setenv("MCIGEN_CACHE_DIR", "")
    text = "# ''' { }} f'{x}' __import__('os') 中文 "
    schema = tmp_path / "t.mci.json"
    tools = [_tool(0, text, text, text)]
    schema.write_text(
        json.dumps({"schemaVersion": "1.0", "metadata": {}, "tools": tools}), "utf-8"
    )
    masked: list[str] = []
    unmasked = fstring_masks.formatted

    def spied(piece: str, format_str: Any) -> str | None:
        result = unmasked(piece, format_str)
        if result is not None:
            masked.append(result)
        return result

    monkeypatch.setattr(fstring_masks, "formatted", spied)
    files, diagnostics = compile_schema(schema, tmp_path / "p", "p")
    assert files is not None, diagnostics.render()
    assert any("f\"# ''' {{ }}}} f'{{x}}'" in piece for piece in masked)
    monkeypatch.setattr(backend, "format_modules", _whole_black)
    assert compile_schema(schema, tmp_path / "p", "p")[0] == files
