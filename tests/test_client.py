"""``pkg.Client`` is a drop-in for mci-py's ``MCIClient``: one script, run against
both, gives the same answers (tool lists, filters, schemas, results, error messages)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from .conftest import built_package, text_tool, write_schema
from .oracle import oracle_python
from .test_oracle_text import CASES, SCHEMAS

SCRIPT = """
def run(make_client, calls, error_type):
    client = make_client({})
    names = client.list_tools()
    tags = sorted({tag for tool in client.tools() for tag in tool.tags})
    answers = {
        "list_tools": names,
        "tools": [
            [
                tool.name,
                tool.description,
                list(tool.tags),
                tool.inputSchema,
                None
                if tool.annotations is None
                else tool.annotations.model_dump(exclude_none=True),
            ]
            for tool in client.tools()
        ],
        "only": [t.name for t in client.only(names[:1] + ["no_such_tool"])],
        "without": [t.name for t in client.without(names[:1])],
        "tags": [t.name for t in client.tags(tags[:1])],
        "no_tags": [t.name for t in client.tags([])],
        "withoutTags": [t.name for t in client.withoutTags(tags[:1])],
        "withoutTags_none": [t.name for t in client.withoutTags([])],
        "toolsets": [t.name for t in client.toolsets(["anything"])],
        "schemas": {name: client.get_tool_schema(name) for name in names},
        "results": [
            make_client(env).execute(tool, props).result.model_dump(mode="json")
            for tool, props, env in calls
        ],
        "errors": [],
    }
    for attempt in (
        lambda: client.execute("no_such_tool", {}),
        lambda: client.get_tool_schema("no_such_tool"),
        lambda: client.execute(names[0], {}),
    ):
        try:
            attempt()
            answers["errors"].append(None)
        except error_type as error:
            answers["errors"].append([type(error).__name__, str(error)])
    return answers
"""

ORACLE_SIDE = SCRIPT + """
import json, sys
from mcipy import MCIClient
from mcipy.client import MCIClientError
schema, calls = json.loads(sys.stdin.read())
def make_client(env):
    return MCIClient(schema_file_path=schema, env_vars=env)
print(json.dumps(run(make_client, calls, MCIClientError)))
"""


def through_mci_py(schema: Path, calls: list[Any]) -> dict[str, Any]:
    done = subprocess.run(
        [str(oracle_python()), "-c", ORACLE_SIDE],
        input=json.dumps([str(schema), calls]),
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    answers: dict[str, Any] = json.loads(done.stdout)
    return answers


def through_client(package: ModuleType, calls: list[Any]) -> dict[str, Any]:
    namespace: dict[str, Any] = {}
    exec(SCRIPT, namespace)
    answers: dict[str, Any] = namespace["run"](
        lambda env: package.Client(env_vars=env), calls, package.MCIClientError
    )
    # Ours is a ValueError too (mci-py's is not).
    assert isinstance(package.MCIClientError("x"), ValueError)
    plain: dict[str, Any] = json.loads(json.dumps(answers))
    return plain


@pytest.mark.parametrize("example", sorted(SCHEMAS))
def test_a_script_for_mci_client_gives_the_same_answers(
    example: str, tmp_path: Path
) -> None:
    calls = [list(case) for case in CASES[example]]
    with built_package(SCHEMAS[example], tmp_path / "pkg") as package:
        ours = through_client(package, calls)
    assert ours == through_mci_py(SCHEMAS[example], calls)


def test_the_client_sees_only_its_env_vars(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    schema = write_schema(
        tmp_path, {"schemaVersion": "1.0", "tools": [text_tool("who", "{{env.WHO}}")]}
    )
    monkeypatch.setenv("WHO", "the process")
    with built_package(schema, tmp_path / "envpkg") as package:
        client = package.Client(env_vars={"WHO": "the client"})
        assert client.execute("who").result.text == "the client"
        assert package.who().text == "the process"
        bare = package.Client().execute("who").result
        assert bare.isError and "env.WHO" in bare.text


def test_input_the_schema_refuses_is_a_client_error_naming_the_field(
    tmp_path: Path,
) -> None:
    tool = text_tool(
        "count",
        "{{props.n}}",
        inputSchema={"type": "object", "properties": {"n": {"type": "integer"}}},
    )
    schema = write_schema(tmp_path, {"schemaVersion": "1.0", "tools": [tool]})
    with built_package(schema, tmp_path / "inpkg") as package:
        client = package.Client()
        with pytest.raises(package.MCIClientError) as refused:
            client.execute("count", {"n": "three"})
        assert isinstance(refused.value, package.ToolInputError)
        assert refused.value.field == "n"


def test_base_dir_replaces_the_schema_directory_for_relative_paths(
    tmp_path: Path,
) -> None:
    (tmp_path / "schema").mkdir()
    (tmp_path / "schema" / "note.txt").write_text("from the schema directory")
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "note.txt").write_text("from base_dir {{props.x}}")
    tool = {"name": "note", "execution": {"type": "file", "path": "./note.txt"}}
    schema = write_schema(
        tmp_path / "schema", {"schemaVersion": "1.0", "tools": [tool]}
    )
    with built_package(schema, tmp_path / "notepkg") as package:
        default = package.Client().execute("note", {"x": 1})
        moved = package.Client(base_dir=str(tmp_path / "elsewhere"))
        assert default.result.text == "from the schema directory"
        assert moved.execute("note", {"x": 1}).result.text == "from base_dir 1"
        assert package.note(x=2).text == "from the schema directory"


def test_toolsets_answer_as_in_mci_py(tmp_path: Path) -> None:
    library = tmp_path / "mci"
    library.mkdir()
    tagged = [
        text_tool("ping", "pong", tags=["net"]),
        text_tool("echo", "{{props.x}}", tags=["text"]),
    ]
    (library / "util.mci.json").write_text(
        json.dumps({"schemaVersion": "1.0", "tools": tagged})
    )
    (library / "more.mci.json").write_text(
        json.dumps({"schemaVersion": "1.0", "tools": [text_tool("later", "l")]})
    )
    schema = write_schema(
        tmp_path,
        {
            "schemaVersion": "1.0",
            "tools": [text_tool("own", "o", tags=["text"])],
            "toolsets": [
                {"name": "util", "filter": "tags", "filterValue": "net,text"},
                "more",
            ],
        },
    )
    calls = [["echo", {"x": 1}, {}], ["later", {}, {}]]
    with built_package(schema, tmp_path / "tspkg") as package:
        ours = through_client(package, calls)
        by_toolset = [t.name for t in package.Client().toolsets(["util", "none"])]
    assert ours == through_mci_py(schema, calls)
    assert by_toolset == ["ping", "echo"]
