"""Hostile templates are data: a build either works, linearly, and the package it
writes imports and answers, or it fails with located errors stating the limit;
never a traceback. File templates, compiled at call time, give error results."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from mcigen_runtime.templating.parser import MAX_NESTING, MAX_NUMBER_DIGITS

from ..conftest import built_package, run_mcigen, schema_of, text_tool, write_schema

OPENERS = ("@if(props.x)", "@for(i{d} in range(0, 1))", "@foreach(e{d} in props.items)")
CLOSERS = ("@endif", "@endfor", "@endforeach")
INPUT = {
    "type": "object",
    "properties": {
        "x": {"type": "string"},
        "items": {"type": "array", "items": {"type": "string"}},
    },
}


def _nested(depth: int, kinds: tuple[int, ...]) -> str:
    """``depth`` blocks, the kind of each taken in turn from ``kinds``, around a
    body that prints every loop variable."""
    chosen = [kinds[d % len(kinds)] for d in range(depth)]
    opened = "".join(OPENERS[k].format(d=d) for d, k in enumerate(chosen))
    body = "{{props.x}}" + "".join(
        "{{" + ("i", "e")[k - 1] + str(d) + "}}" for d, k in enumerate(chosen) if k != 0
    )
    return opened + body + "".join(CLOSERS[k] for k in reversed(chosen))


def _tool(name: str, text: str) -> dict[str, Any]:
    return text_tool(name, text, inputSchema=INPUT)


PLACEHOLDERS = 20_000
CHAIN = 3000
NEARLY_TOO_BIG = "9" * MAX_NUMBER_DIGITS

WORKING = [
    _tool("deepIfs", _nested(MAX_NESTING, (0,))),
    _tool("deepFors", _nested(25, (1,))),
    _tool("deepMixed", _nested(MAX_NESTING, (0, 1, 2))),
    _tool("longChain", "{{" + " | ".join(f"env.A{i}" for i in range(CHAIN)) + "}}"),
    _tool("manyPlaceholders", " ".join("{{props.x}}" for _ in range(PLACEHOLDERS))),
    _tool("bigNumber", f"@if(props.x == {NEARLY_TOO_BIG})big@else small@endif"),
    _tool("manyBlocks", "@foreach(e in props.items)[{{e}}]@endforeach" * 500),
    _tool("longLiteral", "ab\"{}'\\" * 20_000),
    _tool("unicodePath", "{{props.x | env.ÉTÉ | '☃'}}"),
    _tool("lineSeparators", "a\u2028b\x85c\x00{{props.x}}\u2029"),
]


def test_hostile_but_valid_templates_build_and_answer(tmp_path: Path) -> None:
    schema = write_schema(tmp_path, schema_of(*WORKING))
    with built_package(schema, tmp_path / "pkg") as package:
        items = ["a"]
        assert package.deep_ifs(x="X").text == "X"
        assert package.deep_fors(x="X").text == "X" + "0" * 25
        mixed = package.deep_mixed(x="X", items=items).text
        assert mixed == "X" + "0a" * ((MAX_NESTING - 1) // 3) + "0"
        chain = package.long_chain()
        assert chain.isError and "Could not resolve any alternative" in chain.text
        assert package.many_placeholders(x="x").text == " ".join(["x"] * PLACEHOLDERS)
        assert package.big_number(x="x").text == "small"
        assert package.many_blocks(items=["1", "2"]).text == "[1][2]" * 500
        assert package.long_literal().text == "ab\"{}'\\" * 20_000
        assert package.unicode_path().text == "☃"
        separated = package.line_separators(x="x").text
        assert separated == "a\u2028b\x85c\x00x\u2029"
    lint = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--isolated", "--no-cache"]
        + ["--select", "E,F,W,I,UP,B", "--ignore", "E501", str(tmp_path / "pkg")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert lint.returncode == 0, lint.stdout[:2000]


def test_a_long_chain_takes_the_first_value_that_resolves(tmp_path: Path) -> None:
    text = "{{" + " | ".join(f"props.a{i}" for i in range(CHAIN)) + " | 'none'}}"
    properties = {f"a{i}": {"type": "string"} for i in (0, CHAIN - 1)}
    tool = text_tool(
        "chain", text, inputSchema={"type": "object", "properties": properties}
    )
    schema = write_schema(tmp_path, schema_of(tool))
    with built_package(schema, tmp_path / "chained") as package:
        assert package.chain(**{f"a{CHAIN - 1}": "last"}).text == "last"
        assert package.chain().text == "none"


FAILING = {
    "hugeInteger": (
        "@if(props.x > " + "9" * 5000 + ")y@endif",
        "number with 5000 digits; a number in a template may have at most 640",
        "9" * 5000,
    ),
    "hugeFloat": (
        "@if(props.x < 1" + "0" * 400 + ".5)y@endif",
        "number too large for a float",
        "1" + "0" * 400,
    ),
    "hugeBound": (
        "@for(i in range(0, " + "9" * 700 + ")){{i}}@endfor",
        "number with 700 digits; a number in a template may have at most 640",
        "9" * 700,
    ),
    "tooDeep": (
        _nested(MAX_NESTING + 1, (0, 1)),
        f"'@if' nests blocks {MAX_NESTING + 1} deep; "
        f"templates may nest at most {MAX_NESTING}",
        "@if(props.x){{props.x}}{{i1}}",  # the 201st opener, innermost
    ),
    "unclosed": (
        "@if(props.x)" * 50,
        "'@if' is never closed with '@endif'",
        '@if(props.x)"',  # the innermost block left open
    ),
}


def test_templates_over_a_limit_are_located_errors(tmp_path: Path) -> None:
    tools = [_tool(name, text) for name, (text, _, _) in FAILING.items()]
    schema = write_schema(tmp_path, schema_of(*tools))
    result = run_mcigen("build", schema, "-o", tmp_path / "never")
    assert result.returncode == 1
    assert "Traceback" not in result.stderr + result.stdout
    errors = re.findall(r"^.+?:(\d+):(\d+): error: (.*)$", result.stderr, re.M)
    assert sorted(message for _, _, message in errors) == sorted(
        message for _, message, _ in FAILING.values()
    )
    lines = schema.read_text(encoding="utf-8").splitlines()
    for line, column, message in errors:
        # The error points at the construct: the number, or the block's opener.
        (written,) = [at for _, m, at in FAILING.values() if m == message]
        assert lines[int(line) - 1][int(column) - 1 :].startswith(written), message
    assert not (tmp_path / "never").exists()


def test_closers_out_of_place_are_text_as_in_mci_py(tmp_path: Path) -> None:
    tool = _tool("unbalanced", "@endfor" * 3000 + "@if(props.x)a@endfor@endif@endif")
    schema = write_schema(tmp_path, schema_of(tool))
    with built_package(schema, tmp_path / "closers") as package:
        assert package.unbalanced(x="x").text == "@endfor" * 3000 + "a@endfor@endif"


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("@if(props.x > " + "9" * 5000 + ")y@endif", "at most 640"),
        (_nested(MAX_NESTING + 1, (0,)), f"at most {MAX_NESTING}"),
    ],
    ids=["huge-number", "too-deep"],
)
def test_a_file_template_over_a_limit_is_an_error_result(
    tmp_path: Path, content: str, message: str
) -> None:
    (tmp_path / "t.txt").write_text(content, encoding="utf-8")
    tool = {
        "name": "readIt",
        "inputSchema": INPUT,
        "execution": {"type": "file", "path": "t.txt"},
    }
    schema = write_schema(tmp_path, schema_of(tool))
    with built_package(schema, tmp_path / "reader") as package:
        result = package.read_it(x="x")
        assert result.isError
        assert re.match(r".*t\.txt:1:\d+: ", result.text)
        assert message in result.text
        (tmp_path / "t.txt").write_text(_nested(MAX_NESTING, (0, 1)), encoding="utf-8")
        deep = package.read_it(x="X")
        assert not deep.isError
        assert deep.text == "X" + "0" * (MAX_NESTING // 2)
