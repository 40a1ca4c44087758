"""A file read by a file tool is written by someone else (issue 13): its template is
compiled to Python at call time, so its text must reach that code as data. Hostile
contents render to exactly what the interpreting renderer gives, or fail as an
error result; none of it runs."""

from __future__ import annotations

import builtins
import itertools
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcigen_runtime.executors.file.contents import render_file
from mcigen_runtime.templating.lookup import TemplateRuntimeError
from mcigen_runtime.templating.parser import parse_template
from mcigen_runtime.templating.syntax import TemplateSyntaxError

from ..templating.interpreter import render
from .support import CANARY, PAYLOADS
from .test_hostile_strings_property import hostile

_PIECES = st.sampled_from(
    [
        "{{props.a}}",
        '{{props.missing | \'x"""y\'}}',
        '{{props.missing | "\\n"}}',
        "{!! props.a !!}",
        "@foreach(v in props.items){{v}}@endforeach",
        '@if(props.a == "\\""){{props.a}}@else no@endif',
        "{{",
        "}}",
        "@if(",
        "@endif",
        *PAYLOADS,
    ]
)
contents = st.lists(hostile | _PIECES, max_size=8).map("".join)
_COUNTER = itertools.count()


@settings(
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(text=contents, value=hostile)
def test_hostile_file_contents_render_as_the_interpreter_does(
    tmp_path: Path, text: str, value: str
) -> None:
    path = tmp_path / f"f{next(_COUNTER)}.txt"
    path.write_bytes(text.encode("utf-8", "surrogatepass"))
    context: dict[str, Any] = {"props": {"a": value, "items": [value, PAYLOADS[0]]}}
    try:
        expected = render(parse_template(_as_read(text), directives=True), context)
    except (TemplateSyntaxError, TemplateRuntimeError):
        expected = None
    try:
        rendered = render_file(str(path), context)
    except TemplateRuntimeError:
        rendered = None
    except UnicodeDecodeError:
        return  # not a text file: the tool's error result says so
    assert rendered == expected
    assert not hasattr(builtins, CANARY)


def _as_read(text: str) -> str:
    """The text as a file tool reads it (universal newlines)."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


pytestmark = pytest.mark.filterwarnings("ignore")
