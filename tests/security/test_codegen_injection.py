"""Names and text from a schema reach generated code as data only (issue 13, group 1).

Each case was a break before: code in a toolset name, an MCP server name or the
schema's file name ran at import; two names equal after NFKC replaced one another;
a tool named like a builtin broke its neighbours; control and line-separator
characters crashed the build.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ..conftest import run_mcigen, schema_of, text_tool
from .support import PAYLOADS, build, package_main, ran_injected_code

pytestmark = pytest.mark.filterwarnings("ignore")


def _toolset_file(directory: Path, name: str, *tools: dict[str, object]) -> None:
    library = directory / "mci"
    library.mkdir(exist_ok=True)
    (library / f"{name}.mci.json").write_text(
        json.dumps({"schemaVersion": "1.0", "tools": list(tools)}), encoding="utf-8"
    )


@pytest.mark.parametrize("payload", PAYLOADS[:3])
def test_a_toolset_name_is_never_code(tmp_path: Path, payload: str) -> None:
    name = "set" + payload.replace("/", "_")
    _toolset_file(tmp_path, name, text_tool("from_set", "hello"))
    document = {**schema_of(text_tool("own", "x")), "toolsets": [name]}
    result = build(tmp_path, document)
    assert result.returncode == 0, result.stderr
    assert not ran_injected_code(tmp_path)
    listed = json.loads((tmp_path / "pkg" / "manifest.json").read_text("utf-8"))
    assert [t["toolset"] for t in listed["tools"]] == [None, name]
    called = package_main(tmp_path, "call", "from_set")
    assert called.stdout == "hello\n"


def test_an_mcp_server_name_opening_with_quotes_is_never_code(tmp_path: Path) -> None:
    """The name once followed a quote in its server function's docstring, so
    that its own two opening quotes made three and closed the docstring."""
    name = PAYLOADS[0]
    mcp = {"type": "mcp", "serverName": name, "toolName": "pong"}
    cache = {
        "schemaVersion": "1.0",
        "tools": [{"name": "pong", "execution": mcp}],
        "expiresAt": "2999-01-01",
    }
    (tmp_path / "mci" / "mcp").mkdir(parents=True)
    (tmp_path / "mci" / "mcp" / f"{name}.mci.json").write_text(json.dumps(cache))
    stdio = {"command": "no-such-program", "args": []}
    document = {"schemaVersion": "1.0", "tools": [], "mcp_servers": {name: stdio}}
    result = build(tmp_path, document, "tools.mci.json", "--offline")
    assert result.returncode == 0, result.stderr
    assert not ran_injected_code(tmp_path)


def test_the_schema_file_name_is_never_code(tmp_path: Path) -> None:
    file_name = 'x"""\n__import__("builtins").MCIGEN_PWNED = 1\n""".mci.json'
    result = build(tmp_path, schema_of(text_tool("a", "hi")), file_name)
    assert result.returncode == 0, result.stderr
    assert not ran_injected_code(tmp_path)


@pytest.mark.parametrize("payload", PAYLOADS)
def test_descriptions_and_metadata_are_never_code(tmp_path: Path, payload: str) -> None:
    document = schema_of(
        text_tool(
            "a",
            "{{props.p}}",
            description=payload,
            inputSchema={
                "type": "object",
                "properties": {
                    "p": {
                        "type": "string",
                        "description": payload,
                        "enum": [payload, "b"],
                        "default": payload,
                    },
                    payload: {"type": "string", "description": payload},
                },
            },
        )
    )
    document["metadata"] = {"name": payload, "description": payload}
    result = build(tmp_path, document)
    assert result.returncode == 0, result.stderr
    assert not ran_injected_code(tmp_path)
    called = package_main(tmp_path, "call", "a", "--raw")
    assert json.loads(called.stdout)["content"][0]["text"] == payload


def test_names_equal_after_nfkc_are_two_functions_and_a_located_warning(
    tmp_path: Path,
) -> None:
    document = schema_of(
        text_tool("readFile", "one"), text_tool("ｒｅａｄ_file", "two")
    )
    result = build(tmp_path, document)
    assert result.returncode == 0, result.stderr
    assert "tools.mci.json:1:" in result.stderr
    assert "warning: tool 'ｒｅａｄ_file' would be the Python function 'read_file'" in (
        result.stderr
    )
    source = (tmp_path / "pkg" / "tools" / "main.py").read_text(encoding="utf-8")
    assert "def read_file(" in source and "def read_file_2(" in source


def test_tools_named_like_builtins_leave_the_builtins_alone(tmp_path: Path) -> None:
    strict = {
        "type": "object",
        "properties": {"n": {"type": "string", "enum": ["a", "b"]}},
        "required": ["n"],
    }
    names = ["type", "str", "range", "isinstance", "any", "annotations", "client"]
    document = schema_of(
        *(text_tool(name, name) for name in names),
        text_tool("checked", "n={{props.n}}", inputSchema=strict),
    )
    result = build(tmp_path, document)
    assert result.returncode == 0, result.stderr
    manifest = json.loads((tmp_path / "pkg" / "manifest.json").read_text("utf-8"))
    python_names = [tool["python_name"] for tool in manifest["tools"]]
    assert python_names == [f"{name}_" for name in names] + ["checked"]
    assert package_main(tmp_path, "call", "checked", "--arg", "n=a").stdout == "n=a\n"
    refused = package_main(tmp_path, "call", "checked", "--arg", "n=c")
    assert refused.returncode == 2 and "n" in refused.stderr
    for name in names:
        assert package_main(tmp_path, "call", name).stdout == f"{name}\n"


@pytest.mark.parametrize(
    "character",
    ["\x00", "\r", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029"],
)
def test_control_and_separator_characters_build_and_round_trip(
    tmp_path: Path, character: str
) -> None:
    text = f"a{character}b"
    document = schema_of(
        text_tool(
            "t",
            text + " {{props.p}}",
            description=text,
            inputSchema={
                "type": "object",
                "properties": {
                    "p": {"type": "string", "enum": [text, "x"], "default": text}
                },
            },
        )
    )
    document["metadata"] = {"description": text}
    result = build(tmp_path, document)
    assert result.returncode == 0, result.stderr
    called = package_main(tmp_path, "call", "t", "--raw")
    assert json.loads(called.stdout)["content"][0]["text"] == f"{text} {text}"
    manifest = json.loads((tmp_path / "pkg" / "manifest.json").read_text("utf-8"))
    assert manifest["tools"][0]["description"] == text


@pytest.mark.parametrize("name", ["1x", "", '"', "\n", "a b", "class", "_raw", "str"])
def test_property_names_that_are_not_identifiers_become_parameters(
    tmp_path: Path, name: str
) -> None:
    document = schema_of(
        text_tool(
            "t",
            "got {{props.other}}",
            inputSchema={
                "type": "object",
                "properties": {name: {"type": "string"}, "other": {"type": "string"}},
                "required": [name, "other"],
            },
        )
    )
    result = build(tmp_path, document)
    assert result.returncode == 0, result.stderr
    raw = json.dumps({name: "v", "other": "o"})
    called = package_main(tmp_path, "call", "t", "--json", raw)
    assert called.stdout == "got o\n", called.stderr


def test_a_lone_surrogate_is_a_located_error(tmp_path: Path) -> None:
    schema = tmp_path / "tools.mci.json"
    schema.write_text(
        '{"schemaVersion": "1.0", "tools": [\n'
        '  {"name": "a", "description": "\\ud800", '
        '"execution": {"type": "text", "text": "x"}}]}',
        encoding="utf-8",
    )
    result = run_mcigen("build", schema, "-o", tmp_path / "pkg")
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert f"{schema}:2:32: error: this value holds a lone surrogate (\\ud800)" in (
        result.stderr
    )


@pytest.mark.parametrize(
    ("name", "problem"),
    [
        ("class", "'class' is a Python keyword"),
        ("None", "'None' is a Python keyword"),
        ("json", "would shadow Python's own 'json'"),
        ("ｐｋｇ", "is not a valid package name"),
    ],
)
def test_package_names_that_cannot_be_imported_are_refused(
    tmp_path: Path, name: str, problem: str
) -> None:
    schema = tmp_path / "tools.mci.json"
    schema.write_text(json.dumps(schema_of(text_tool("a", "x"))), encoding="utf-8")
    result = run_mcigen("build", schema, "-o", tmp_path / "out", "--name", name)
    assert result.returncode == 2
    assert problem in result.stderr
    assert not (tmp_path / "out").exists()


def test_diagnostics_stay_one_line_whatever_the_names_hold(tmp_path: Path) -> None:
    first, second = "a\x1b\nb", "a\u2028b"
    result = build(tmp_path, schema_of(text_tool(first, "x"), text_tool(second, "y")))
    assert result.returncode == 0, result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 4 and lines[-1] == "0 errors, 3 warnings"
    assert all(line.isprintable() for line in lines)
    named = [line for line in lines if "like tool" in line]
    assert len(named) == 1
    assert "like tool 'a\\x1b\\nb'" in named[0] and "tool 'a\\u2028b'" in named[0]
    not_printable = [line for line in lines if "not printable" in line]
    warned = [line.split(": warning: ", 1)[1] for line in not_printable]
    assert [text.split(": its name")[0] for text in warned] == [
        "tool 'a\\x1b\\nb'",
        "tool 'a\\u2028b'",
    ]


def test_lines_that_look_like_imports_in_descriptions_are_text(tmp_path: Path) -> None:
    document = schema_of(
        text_tool("a", "x", description="from .._runtime.nonexistent import x")
    )
    document["metadata"] = {"description": "x\nfrom ._runtime.http_exec import send"}
    result = build(tmp_path, document, "tools.mci.json", "--vendor-runtime")
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "pkg" / "_runtime" / "results.py").exists()
    assert not (
        tmp_path / "pkg" / "_runtime" / "executors" / "http" / "transport.py"
    ).exists()
    assert package_main(tmp_path, "call", "a").stdout == "x\n"


def test_definition_names_and_non_ascii_tool_names_give_working_models(
    tmp_path: Path,
) -> None:
    options = {"type": "object", "properties": {"level": {"type": "integer"}}}
    schema = {
        "type": "object",
        "$defs": {"v1.2 options": options, PAYLOADS[0]: options},
        "properties": {
            "a": {"$ref": "#/$defs/v1.2 options"},
            "b": {"$ref": "#/$defs/" + PAYLOADS[0].replace("/", "~1")},
        },
    }
    names = ["çava", "天気", "x_1", "x1x"]
    document = schema_of(*(text_tool(n, "ok", inputSchema=schema) for n in names))
    result = build(tmp_path, document)
    assert result.returncode == 0, result.stderr
    for name in names:
        good = package_main(tmp_path, "call", name, "--json", '{"a": {"level": 1}}')
        assert good.stdout == "ok\n", good.stderr
        bad = package_main(tmp_path, "call", name, "--json", '{"b": {"level": "x"}}')
        assert bad.returncode == 2 and "b.level" in bad.stderr, bad.stderr


@pytest.mark.parametrize("name", ["StrictStr", "BaseModel", "Field", "Literal"])
def test_a_property_named_like_an_import_of_the_models(
    tmp_path: Path, name: str
) -> None:
    strict = {"type": "object", "properties": {"s": {"type": "string"}}}
    shadowing = {
        "type": "object",
        "properties": {name: {"type": "string"}, "n": {"type": "integer"}},
    }
    document = schema_of(
        text_tool("plain", "s={{props.s}}", inputSchema=strict),
        text_tool("shadow", "v={{props." + name + "}}", inputSchema=shadowing),
    )
    result = build(tmp_path, document)
    assert result.returncode == 0, result.stderr
    assert package_main(tmp_path, "call", "plain", "--arg", "s=x").stdout == "s=x\n"
    called = package_main(tmp_path, "call", "shadow", "--json", f'{{"{name}": "y"}}')
    assert called.stdout == "v=y\n", called.stderr
    refused = package_main(tmp_path, "call", "shadow", "--json", '{"n": "z"}')
    assert refused.returncode == 2 and "n" in refused.stderr
