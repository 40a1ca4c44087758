"""Templates read from files at call time: cache by file version, errors with positions."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from mcigen_runtime.executors.file import contents as file_templates
from mcigen_runtime.executors.file.contents import file_renderer, render_file
from mcigen_runtime.templating.lookup import TemplateRuntimeError

CONTEXT = {"props": {"name": "Ann", "items": ["a", "b"]}, "env": {}, "input": {}}


def test_renders_the_whole_language(tmp_path: Path) -> None:
    path = tmp_path / "t.txt"
    path.write_text(
        "Hi {{props.name}}\n@foreach(i in props.items)- {{i}}\n@endforeach", "utf-8"
    )
    assert render_file(str(path), CONTEXT) == "Hi Ann\n- a\n- b\n"
    assert render_file(str(path), CONTEXT, "trim") == "Hi Ann\n- a\n- b\n"


def test_windows_newlines_are_read_as_newlines(tmp_path: Path) -> None:
    path = tmp_path / "crlf.txt"
    path.write_bytes(b"a {{props.name}}\r\nb\r\n")
    assert render_file(str(path), CONTEXT) == "a Ann\nb\n"


def test_parse_is_cached_until_the_file_changes(tmp_path: Path) -> None:
    path = tmp_path / "t.txt"
    path.write_text("one {{props.name}}", "utf-8")
    first = file_renderer(str(path))
    assert file_renderer(str(path)) is first
    path.write_text("two {{props.name}}!", "utf-8")
    os.utime(path, ns=(1, 1))
    assert render_file(str(path), CONTEXT) == "two Ann!"
    assert file_renderer(str(path)) is not first


def test_cache_is_bounded(tmp_path: Path) -> None:
    for index in range(file_templates._CACHE_LIMIT + 5):
        path = tmp_path / f"f{index}.txt"
        path.write_text(str(index), "utf-8")
        file_renderer(str(path))
    assert len(file_templates._cache) <= file_templates._CACHE_LIMIT


def test_syntax_error_names_file_line_and_column(tmp_path: Path) -> None:
    path = tmp_path / "bad.txt"
    path.write_text("line one\n  @if(props.name) never closed\n", "utf-8")
    with pytest.raises(TemplateRuntimeError) as caught:
        render_file(str(path), CONTEXT)
    assert str(caught.value) == f"{path}:2:3: '@if' is never closed with '@endif'"


def test_missing_file_raises_os_error(tmp_path: Path) -> None:
    with pytest.raises(OSError):
        render_file(str(tmp_path / "nope.txt"), CONTEXT)
