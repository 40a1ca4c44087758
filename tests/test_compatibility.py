"""Each deliberate difference from mci-py listed in COMPATIBILITY.md, shown with both sides."""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest
from mcigen_runtime.errors import ToolInputError

from mcigen import MCIClient

from .conftest import run_mcigen, schema_of, text_tool, write_schema
from .oracle import run_oracle

COUNTED = text_tool(
    "counted",
    "n={{props.count}}",
    inputSchema={
        "type": "object",
        "properties": {"count": {"type": "integer"}},
        "required": ["count"],
    },
)
CLOSED = text_tool(
    "closed",
    "a={{props.a}}",
    inputSchema={
        "type": "object",
        "properties": {"a": {"type": "string"}},
        "additionalProperties": False,
    },
)


def test_row1_wrong_type_raises_where_mci_py_runs(
    tmp_path: Path, build: Callable[..., ModuleType]
) -> None:
    schema = write_schema(tmp_path, schema_of(COUNTED))
    (theirs,) = run_oracle(
        schema, [{"tool": "counted", "props": {"count": "3"}, "env": {}}]
    )
    assert theirs["result"]["content"][0]["text"] == "n=3"
    pkg = build(schema_of(COUNTED), "compat_one")
    with pytest.raises(pkg.ToolInputError) as caught:
        pkg.counted(count="3")
    assert caught.value.field == "count"


SIZED = text_tool(
    "sized",
    "{{props.n}} {{props}}",
    inputSchema={
        "type": "object",
        "properties": {
            "n": {"type": "integer"},
            "sizes": {"type": "array", "items": {"type": "integer"}},
            "box": {"type": "object", "properties": {"depth": {"type": "integer"}}},
        },
    },
)


def test_row51_a_whole_float_for_an_integer_reaches_the_tool_as_an_int(
    tmp_path: Path, build: Callable[..., ModuleType]
) -> None:
    schema = write_schema(tmp_path, schema_of(SIZED))
    props = {"n": 3.0, "sizes": [1.0, 2], "box": {"depth": 2.0}}
    (theirs,) = run_oracle(schema, [{"tool": "sized", "props": props, "env": {}}])
    assert theirs["result"]["content"][0]["text"] == (
        "3.0 {'n': 3.0, 'sizes': [1.0, 2], 'box': {'depth': 2.0}}"
    )
    pkg = build(schema_of(SIZED), "compat_fifty_one")
    assert pkg.sized(**props).text == "3 {'n': 3, 'sizes': [1, 2], 'box': {'depth': 2}}"


def test_row3_forbidden_extra_property(
    tmp_path: Path, build: Callable[..., ModuleType]
) -> None:
    schema = write_schema(tmp_path, schema_of(CLOSED))
    (theirs,) = run_oracle(
        schema, [{"tool": "closed", "props": {"a": "x", "b": 1}, "env": {}}]
    )
    assert theirs["result"]["content"][0]["text"] == "a=x"
    build(schema_of(CLOSED), "compat_three")
    from compat_three.tools.main import INVOKERS  # type: ignore[import-not-found]

    with pytest.raises(ValueError, match="b: Extra inputs are not permitted"):
        INVOKERS["closed"]({"a": "x", "b": 1}, {})


def test_row4_unresolvable_placeholder_is_a_build_error(tmp_path: Path) -> None:
    document = schema_of(text_tool("broken", "x {{props..a}}"))
    schema = write_schema(tmp_path, document)
    (theirs,) = run_oracle(schema, [{"tool": "broken", "props": {}, "env": {}}])
    assert theirs["result"]["isError"] is True
    result = run_mcigen("build", schema, "-o", tmp_path / "out")
    assert result.returncode == 1
    assert "error: invalid path 'props..a' in placeholder" in result.stderr
    assert not (tmp_path / "out").exists()


# Template defects of mci-py 1.2: (tool, template, props, env, mci-py's text, ours).
# An mci-py text starting with "ERROR: " is an isError result with that message.
SECRET = {"SECRET": "hunter2"}
ROWS = {"rows": [{"name": "a", "qty": 1}, {"name": "b", "qty": 5}]}
TEMPLATE_DEFECTS = [
    (
        "nested_for",
        "@for(i in range(0, 2))@for(j in range(0, 2)){{i}}{{j}} @endfor@endfor",
        {},
        {},
        "ERROR: Failed to resolve placeholder '{{j}}': Could not resolve any alternative. "
        "Tried: j. Errors: j: Path 'j' not found in context (missing 'j')",
        "00 01 10 11 ",
    ),
    (
        "nested_foreach",
        "@foreach(row in props.grid)[@foreach(c in row){{c}}@endforeach]@endforeach",
        {"grid": [[1, 2], [3]]},
        {},
        "ERROR: Failed to resolve placeholder '{{c}}': Could not resolve any alternative. "
        "Tried: c. Errors: c: Path 'c' not found in context (missing 'c')",
        "[12][3]",
    ),
    (
        "nested_if",
        "@if(props.n)A@if(props.missing)B@endif C@endif",
        {"n": 1},
        {},
        "A@if(props.missing)B C@endif",
        "A C",
    ),
    (
        "loop_variable_in_condition",
        "@foreach(r in props.rows)@if(r.qty > 2){{r.name}}@endif@endforeach",
        ROWS,
        {},
        "ERROR: Cannot compare types 'str' and 'int' with '>'",
        "b",
    ),
    (
        "else_after_elseif",
        "@if(props.n > 10)big@elseif(props.n > 7)mid@else small@endif",
        {"n": 5},
        {},
        "",
        "small",
    ),
    (
        "values_are_data",
        "@foreach(x in props.notes)[{{x}}]@endforeach",
        {"notes": ["{{env.SECRET}}", "@if(props.n)leak@endif"], "n": 1},
        SECRET,
        "[hunter2][leak]",
        "[{{env.SECRET}}][@if(props.n)leak@endif]",
    ),
    (
        "loop_variable_in_fallback",
        "@for(i in range(0, 2)){{ i | 'none' }}@endfor",
        {},
        {},
        "nonenone",
        "01",
    ),
    (
        "deep_path_into_loop_item",
        "@foreach(x in props.d){{x.key}}={{x.deep}}@endforeach",
        {"d": {"k": {"deep": 1}}},
        {},
        "ERROR: Failed to resolve placeholder '{{x.deep}}': Could not resolve any "
        "alternative. Tried: x.deep. Errors: x.deep: Path 'x.deep' not found in context "
        "(missing 'x')",
        "k=1",
    ),
    (
        "else_inside_a_word",
        "@if(props.n)mail me@elsewhere.org@endif",
        {"n": 1},
        {},
        "mail me",
        "mail me@elsewhere.org",
    ),
    (
        "parenthesis_in_quotes",
        '@if(props.mail == "x)")yes@else no@endif',
        {"mail": "x)"},
        {},
        "no",
        "yes",
    ),
]


def test_template_defects_show_both_outputs(tmp_path: Path) -> None:
    """Each row of COMPATIBILITY.md's template section: mci-py's output, then ours."""
    document = schema_of(
        *(text_tool(name, text) for name, text, *_ in TEMPLATE_DEFECTS)
    )
    schema = write_schema(tmp_path, document)
    calls = [
        {"tool": row[0], "props": row[2], "env": row[3]} for row in TEMPLATE_DEFECTS
    ]
    theirs = run_oracle(schema, calls)
    assert run_mcigen("build", schema, "-o", tmp_path / "defects").returncode == 0
    sys.path.insert(0, str(tmp_path))
    try:
        invokers = importlib.import_module("defects.tools.main").INVOKERS
        for (name, _, props, env, mci_py, ours), oracle in zip(
            TEMPLATE_DEFECTS, theirs, strict=True
        ):
            result = oracle["result"]
            shown = ("ERROR: " if result["isError"] else "") + result["content"][0][
                "text"
            ]
            assert shown == mci_py, name
            assert invokers[name](props, env).text == ours, name
    finally:
        sys.path.remove(str(tmp_path))


def test_row16_relative_file_paths_use_the_schema_directory(tmp_path: Path) -> None:
    project = tmp_path / "project"
    (project / "docs").mkdir(parents=True)
    (project / "docs" / "x.txt").write_text("found", "utf-8")
    document = schema_of(
        {"name": "doc", "execution": {"type": "file", "path": "./docs/x.txt"}}
    )
    schema = write_schema(project, document)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    old = Path.cwd()
    os.chdir(elsewhere)
    try:
        (theirs,) = run_oracle(schema, [{"tool": "doc", "props": {}, "env": {}}])
    finally:
        os.chdir(old)
    assert theirs["result"]["content"][0]["text"] == "File not found: ./docs/x.txt"
    assert run_mcigen("build", schema, "-o", tmp_path / "out" / "row16").returncode == 0
    script = "import row16; print(row16.doc().text)"
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=elsewhere,
        env={**os.environ, "PYTHONPATH": str(tmp_path / "out")},
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stdout == "found\n"


def test_row20_no_state_across_calls(
    tmp_path: Path, build: Callable[..., ModuleType]
) -> None:
    """mci-py templates a file or cli tool's config in place on its first call, so a
    client's later calls reuse the first call's props; each of our calls starts anew."""
    (tmp_path / "a.txt").write_text("file a", "utf-8")
    (tmp_path / "b.txt").write_text("file b", "utf-8")
    tools = [
        {"name": "read", "execution": {"type": "file", "path": "./{{props.name}}.txt"}},
        {
            "name": "say",
            "execution": {"type": "cli", "command": "echo", "args": ["{{props.word}}"]},
        },
    ]
    schema = write_schema(tmp_path, schema_of(*tools), "stateful.mci.json")
    calls = [
        {"tool": "read", "props": {"name": "a"}, "env": {}},
        {"tool": "read", "props": {"name": "b"}, "env": {}},
        {"tool": "say", "props": {"word": "one"}, "env": {}},
        {"tool": "say", "props": {"word": "two"}, "env": {}},
    ]
    old = Path.cwd()
    os.chdir(tmp_path)
    try:
        theirs = run_oracle(schema, calls, shared_client=True)
    finally:
        os.chdir(old)
    assert [a["result"]["content"][0]["text"] for a in theirs] == [
        "file a",
        "file a",
        "one\n",
        "one\n",
    ]
    build(schema_of(*tools), "stateless")
    from stateless.tools.main import INVOKERS  # type: ignore[import-not-found]

    ours = [INVOKERS[c["tool"]](c["props"], {}).text for c in calls]
    assert ours == ["file a", "file b", "one\n", "two\n"]


def test_row42_an_invalid_input_schema_is_a_build_error(tmp_path: Path) -> None:
    typo = text_tool(
        "typo",
        "p={{props.p}}",
        inputSchema={"type": "object", "properties": {"p": {"type": "strin"}}},
    )
    schema = write_schema(tmp_path, schema_of(typo))
    (theirs,) = run_oracle(schema, [{"tool": "typo", "props": {"p": 1}, "env": {}}])
    assert theirs["result"]["content"][0]["text"] == "p=1"
    result = run_mcigen("build", schema, "-o", tmp_path / "out")
    assert result.returncode == 1
    assert "error: invalid JSON Schema: 'strin' is not one of" in result.stderr


def test_row43_a_lone_surrogate_is_a_build_error(tmp_path: Path) -> None:
    schema = tmp_path / "tools.mci.json"
    schema.write_text(
        '{"schemaVersion": "1.0", "tools": [{"name": "odd", '
        '"execution": {"type": "text", "text": "a\\ud800b"}}]}'
    )
    (theirs,) = run_oracle(schema, [{"tool": "odd", "props": {}, "env": {}}])
    assert theirs["result"]["content"][0]["text"] == "a\ud800b"
    result = run_mcigen("build", schema, "-o", tmp_path / "out")
    assert result.returncode == 1
    assert "error: this value holds a lone surrogate (\\ud800)" in result.stderr


def test_row44_names_equal_after_nfkc_get_a_second_python_name(
    tmp_path: Path,
) -> None:
    document = schema_of(
        text_tool("readFile", "one"), text_tool("ｒｅａｄ_file", "two")
    )
    schema = write_schema(tmp_path, document)
    names = ("readFile", "ｒｅａｄ_file")
    calls = [{"tool": name, "props": {}, "env": {}} for name in names]
    theirs = run_oracle(schema, calls)
    assert [t["result"]["content"][0]["text"] for t in theirs] == ["one", "two"]
    result = run_mcigen("build", schema, "-o", tmp_path / "nfkc")
    assert result.returncode == 0, result.stderr
    assert (
        "warning: tool 'ｒｅａｄ_file' would be the Python function 'read_file', like "
        "tool 'readFile'" in result.stderr
    )
    sys.path.insert(0, str(tmp_path))
    try:
        package = importlib.import_module("nfkc")
        client = package.Client()
        assert [client.execute(name).result.content[0].text for name in names] == [
            "one",
            "two",
        ]
        assert (package.read_file().text, package.read_file_2().text) == ("one", "two")
    finally:
        sys.path.remove(str(tmp_path))
        for module in [m for m in sys.modules if m.split(".")[0] == "nfkc"]:
            del sys.modules[module]


def test_row164_properties_that_are_no_mapping_are_refused(tmp_path: Path) -> None:
    """mci-py reads a list given as the properties as if none were given and fails
    on a string or a number with a TypeError of its own; mcigen's MCIClient refuses
    anything but a mapping (or None) as input naming no field, before the tool runs."""
    opened = text_tool(
        "opened",
        "a={{props.a | 'none'}}",
        inputSchema={"type": "object", "properties": {"a": {"type": "string"}}},
    )
    schema = write_schema(tmp_path, schema_of(opened))
    given: list[object] = [[["a", "v"]], [], "av", 5]
    theirs = run_oracle(
        schema, [{"tool": "opened", "props": props, "env": {}} for props in given]
    )
    assert [answer.get("result", {}).get("content") for answer in theirs[:2]] == [
        [{"type": "text", "text": "a=none"}]
    ] * 2
    assert [answer.get("exception") for answer in theirs[2:]] == [
        "TypeError: string indices must be integers, not 'str'",
        "TypeError: argument of type 'int' is not iterable",
    ]
    client = MCIClient(schema_file_path=str(schema))
    for props, shown in zip(given, ["list", "list", "str", "int"], strict=True):
        with pytest.raises(ToolInputError) as raised:
            client.execute("opened", props)  # type: ignore[arg-type]
        assert str(raised.value) == (
            "invalid input for tool 'opened': the properties must be a mapping "
            f"of names to values, got {shown}"
        )
        assert raised.value.field == ""
    assert client.execute("opened", None).result.content[0].text == "a=none"
