"""A pyMCPBroker config read and checked: both shapes of its tree, and every
problem reported at once, each where it was written."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from mcigen_runtime.templating.syntax import PathRef, Placeholder, Text

from mcigen import ir
from mcigen.diagnostics import Diagnostics
from mcigen.frontend.broker import holds_broker, lower_broker

SOURCE = {"command": "server --stdio"}


def lowered(tmp_path: Path, document: Any) -> tuple[ir.Schema | None, Diagnostics]:
    path = tmp_path / "broker.json"
    path.write_text(json.dumps(document, indent=2), encoding="utf-8")
    return lower_broker(path)


def messages(tmp_path: Path, text: str) -> list[str]:
    path = tmp_path / "broker.json"
    path.write_text(text, encoding="utf-8")
    _, diagnostics = lower_broker(path)
    return [str(item).replace(f"{tmp_path}/", "") for item in diagnostics.sorted()]


def test_a_list_hangs_under_an_implicit_root_and_missing_nodes_are_made(
    tmp_path: Path,
) -> None:
    schema, diagnostics = lowered(
        tmp_path,
        {
            "tree": [
                {"path": "/repo/read/", "description": "Read things.\nMore."},
                {"path": "/util", "summary": "Utilities"},
            ]
        },
    )
    assert schema is not None, diagnostics.render()
    assert schema.tree_nodes == (
        ir.TreeNode("/", ""),
        ir.TreeNode("/repo", ""),
        ir.TreeNode("/repo/read", "Read things.", "Read things.\nMore."),
        ir.TreeNode("/util", "Utilities"),
    )
    assert schema.metadata == {"name": "broker"}


def test_an_explicit_root_gives_the_package_its_name_and_children_nest(
    tmp_path: Path,
) -> None:
    schema, _ = lowered(
        tmp_path,
        {
            "tree": {
                "path": "/",
                "type": "node",
                "summary": "My tools",
                "description": "All of them",
                "children": [
                    {
                        "path": "/a",
                        "children": [{"path": "/a/b", "source": SOURCE}],
                    }
                ],
            }
        },
    )
    assert schema is not None
    assert [node.path for node in schema.tree_nodes] == ["/", "/a", "/a/b"]
    assert schema.metadata == {"name": "My tools", "description": "All of them"}
    (source,) = schema.broker_sources
    assert source.node == "/a/b"
    assert source.server.name == "a.b"
    assert schema.mcp_servers == (source.server,)


def test_a_source_is_lowered_with_its_filter_aliases_and_overrides(
    tmp_path: Path,
) -> None:
    schema, diagnostics = lowered(
        tmp_path,
        {
            "tree": [
                {
                    "path": "/",
                    "source": {
                        "backend": "stdio",
                        "command": "npx -y 'my server' --root=${HOME}/x {{no}}",
                        "tool_filter": ["get_*", "!get_secret_*"],
                        "path_aliases": {"get_file_contents": "get_file"},
                        "tool_overrides": {
                            "get_file_contents": {
                                "summary": "A file",
                                "timeout": 1.1,
                                "max_output_chars": 100,
                                "render_mode": "text",
                                "example_args": {"path": "README.md"},
                            }
                        },
                    },
                }
            ]
        },
    )
    assert schema is not None, diagnostics.render()
    (source,) = schema.broker_sources
    assert source.server.name == "%2F"
    config = source.server.config
    assert config["command"].nodes == (Text("npx"),)
    assert [word.nodes for word in config["args"]] == [
        (Text("-y"),),
        (Text("my server"),),
        (
            Text("--root="),
            Placeholder("env.HOME", (PathRef(("env", "HOME"), 7),), 7),
            Text("/x"),
        ),
        (Text("{{no}}"),),
    ]
    assert source.patterns == ("get_*", "!get_secret_*")
    assert source.aliases == {"get_file_contents": "get_file"}
    override = source.overrides["get_file_contents"]
    assert (override.summary, override.timeout_ms, override.max_output_chars) == (
        "A file",
        1100,
        100,
    )
    assert override.render_mode == "text"
    assert override.example_args == {"path": "README.md"}


def test_every_mistake_is_reported_at_once_where_it_was_written(
    tmp_path: Path,
) -> None:
    text = """{
  "tree": [
    {"path": "/a", "sumary": "x"},
    {"path": "b"},
    {"path": "/c", "type": "leaf", "source": {"backend": "http", "command": "x"}},
    {"path": "/d", "source": {"command": "run 'unbalanced"}},
    {"path": "/e", "source": {"command": "x", "tool_overrides": {"t": {
      "max_output_chars": 0, "timeout": -1, "render_mode": "html",
      "example_args": [], "colour": 1}, "u": {"timeout": 1e300}},
      "path_aliases": {"t": "a/b"}}},
    {"path": "/a", "summary": "${HOME}",
     "children": [{"path": "/elsewhere"}]}
  ],
  "extra": 1
}
"""
    assert messages(tmp_path, text) == [
        "broker.json:3:20: error: unknown field 'sumary' in node (did you mean 'summary'?)",
        "broker.json:4:14: error: 'path' must be an absolute path (starting with '/'), got 'b'",
        "broker.json:5:28: error: 'type' must be one of 'node', got 'leaf'",
        "broker.json:5:58: error: backend 'http' is not supported: mcigen mounts stdio "
        "MCP servers only (an MCI schema's 'mcp_servers' reaches HTTP servers)",
        "broker.json:6:42: error: 'command' cannot be split into words: No closing quotation",
        "broker.json:8:27: error: 'max_output_chars' must be an integer >= 1, got 0",
        "broker.json:8:41: error: 'timeout' must be a number of seconds > 0, got -1",
        "broker.json:8:60: error: 'render_mode' must be one of 'json', 'text', got 'html'",
        "broker.json:9:23: error: 'example_args' must be an object, got array",
        "broker.json:9:27: error: unknown field 'colour' in tool override",
        "broker.json:9:58: error: 'timeout' must be at most 86400 seconds (a day), "
        "got 1e+300",
        "broker.json:10:29: error: 'path_aliases.t' must be a non-empty name without '/', got 'a/b'",
        "broker.json:11:14: error: node '/a' is also defined at broker.json:3:14",
        "broker.json:12:28: error: node '/elsewhere' does not lie under its parent '/a'",
        "broker.json:14:3: error: unknown field 'extra' in broker config",
    ]


def test_variables_are_substituted_in_every_string_and_commands_keep_theirs(
    tmp_path: Path,
) -> None:
    """Paths, texts, filters, aliases and example args read the build's
    environment; the command keeps its reference (read when the server starts)."""
    path = tmp_path / "broker.json"
    document = {
        "tree": [
            {
                "path": "/${TEAM}",
                "summary": "Tools of ${TEAM}",
                "description": "${TEAM}: ${{not a variable}} stays",
                "source": {
                    "command": "server --token ${TOKEN}",
                    "tool_filter": ["${ONLY}", "!${ONLY}_secret"],
                    "path_aliases": {"get_${TEAM}": "${ALIAS}"},
                    "tool_overrides": {
                        "get_${TEAM}": {
                            "summary": "Get ${TEAM}",
                            "description": "Reads ${TEAM}'s files",
                            "example_args": {"who": ["${TEAM}", 1]},
                        }
                    },
                },
            }
        ]
    }
    path.write_text(json.dumps(document), encoding="utf-8")
    env = {"TEAM": "red", "ONLY": "get_*", "ALIAS": "fetch", "TOKEN": "hunter2"}
    schema, diagnostics = lower_broker(path, env)
    assert schema is not None, diagnostics.render()
    assert not diagnostics.items
    assert schema.tree_nodes[1] == ir.TreeNode(
        "/red", "Tools of red", "red: ${{not a variable}} stays"
    )
    (source,) = schema.broker_sources
    assert source.node == "/red"
    assert source.patterns == ("get_*", "!get_*_secret")
    assert source.aliases == {"get_${TEAM}": "fetch"}  # keys are the server's names
    override = source.overrides["get_${TEAM}"]
    assert (override.summary, override.description) == ("Get red", "Reads red's files")
    assert override.example_args == {"who": ["red", 1]}
    token = source.server.config["args"][1]
    assert token.nodes == (
        Placeholder("env.TOKEN", (PathRef(("env", "TOKEN"), 0),), 0),
    )
    assert "hunter2" not in repr(schema)


def test_a_variable_that_is_not_set_is_an_error_where_it_is_read(
    tmp_path: Path,
) -> None:
    text = """{"tree": [
  {"path": "/${TEAM}", "summary": "${TEAM} and ${ORG}",
   "source": {"command": "server ${TOKEN}"}}
]}
"""
    path = tmp_path / "broker.json"
    path.write_text(text, encoding="utf-8")
    _, diagnostics = lower_broker(path, {"ORG": "acme"})
    assert [str(d).replace(f"{tmp_path}/", "") for d in diagnostics.sorted()] == [
        "broker.json:2:12: error: the environment variable TEAM is not set, and "
        "'config.tree[0].path' reads it when the package is built (only a source's "
        "'command' reads its variables when the server starts)",
        "broker.json:2:35: error: the environment variable TEAM is not set, and "
        "'config.tree[0].summary' reads it when the package is built (only a "
        "source's 'command' reads its variables when the server starts)",
    ]


def test_the_root_node_must_be_the_root(tmp_path: Path) -> None:
    assert messages(tmp_path, '{"tree": {"path": "/top"}}') == [
        "broker.json:1:19: error: the root node's path must be '/', got '/top' (or "
        "make 'tree' a list of nodes under an implicit root)"
    ]


def test_a_command_naming_nothing_is_an_error(tmp_path: Path) -> None:
    text = '{"tree": [{"path": "/", "source": {"command": "  "}}]}'
    assert messages(tmp_path, text) == [
        "broker.json:1:47: error: 'command' names no program"
    ]


def test_a_config_is_recognised_by_its_tree_in_json_and_yaml(tmp_path: Path) -> None:
    (tmp_path / "b.yaml").write_text("tree:\n  - path: /a\n", encoding="utf-8")
    (tmp_path / "m.json").write_text('{"schemaVersion": "1.0", "tree": []}')
    (tmp_path / "b.json").write_text('{"tree": []}')
    assert holds_broker(tmp_path / "b.yaml")
    assert holds_broker(tmp_path / "b.json")
    assert not holds_broker(tmp_path / "m.json")
    assert not holds_broker(tmp_path)


@pytest.mark.parametrize(
    ("text", "recognised"),
    [
        # keys nested below the top never count
        ("tools:\n  - tree: x\n    schemaVersion: '1.0'\nmetadata: {tree: 1}\n", False),
        ("metadata:\n  schemaVersion: '1.0'\ntree:\n  - path: /a\n", True),
        ("{meta: [1, {schemaVersion: x}], tree: []}\n", True),
        ("tree: []\nnested: {a: {b: [c]}}\nschemaVersion: '1.0'\n", False),
        ("- tree\n", False),  # a sequence, not an object
        ("tree\n", False),  # a scalar
        ("tree: [\n", False),  # not YAML
        ("tree: []\n---\nschemaVersion: '1.0'\n", True),  # the first document
    ],
)
def test_recognition_reads_only_the_top_level_keys_of_yaml(
    tmp_path: Path, text: str, recognised: bool
) -> None:
    (tmp_path / "c.yaml").write_text(text, encoding="utf-8")
    assert holds_broker(tmp_path / "c.yaml") is recognised


@pytest.mark.parametrize(
    ("written", "problem"),
    [
        ("1e999", "at most 86400 seconds (a day), got inf"),
        ("-1e999", "a number of seconds > 0, got -inf"),
        ("86401", "at most 86400 seconds (a day), got 86401"),
    ],
)
def test_a_timeout_past_a_day_or_infinite_is_located_in_json(
    tmp_path: Path, written: str, problem: str
) -> None:
    text = (
        '{"tree": [{"path": "/x", "source": {"command": "x",\n'
        f'  "tool_overrides": {{"t": {{"timeout": {written}}}}}}}}}]}}\n'
    )
    assert messages(tmp_path, text) == [
        f"broker.json:2:39: error: 'timeout' must be {problem}"
    ]


@pytest.mark.parametrize(
    ("written", "problem"),
    [
        (".inf", "at most 86400 seconds (a day), got inf"),
        ("-.inf", "a number of seconds > 0, got -inf"),
        (".nan", "a number of seconds > 0, got nan"),
    ],
)
def test_a_timeout_that_is_no_number_of_seconds_is_located_in_yaml(
    tmp_path: Path, written: str, problem: str
) -> None:
    path = tmp_path / "broker.yaml"
    path.write_text(
        "tree:\n"
        "  - path: /x\n"
        "    source:\n"
        "      command: x\n"
        "      tool_overrides:\n"
        f"        t: {{timeout: {written}}}\n",
        encoding="utf-8",
    )
    _, diagnostics = lower_broker(path)
    assert [str(item) for item in diagnostics.sorted()] == [
        f"{path}:6:22: error: 'timeout' must be {problem}"
    ]


def test_server_names_are_one_per_path_and_fit_a_file_name() -> None:
    """A server's name names its cache file: two paths never share one."""
    from mcigen_runtime.tree import normalize

    from mcigen.frontend.broker.sources import server_name

    assert server_name("/repo/read") == "repo.read"
    assert server_name("/a/b") == "a.b"
    assert server_name("/a.b") == "a%2Eb"
    assert server_name("/") == "%2F"
    written = ["/a%2Eb", "/a%252Eb", "/%2F", "/%252F", "/a%2Fb", "/a/b/", "/a.b"]
    assert len({server_name(normalize(path)) for path in written}) == len(
        {normalize(path) for path in written}
    )
    assert server_name("/ü ~") == "%C3%BC%20%7E"
    long_a, long_b = "/" + "x" * 300 + "a", "/" + "x" * 300 + "b"
    assert server_name(long_a) != server_name(long_b)
    assert len(server_name(long_a)) == 120 and "~" in server_name(long_a)


def test_a_source_whose_fields_are_of_the_wrong_types_is_errors_not_a_crash(
    tmp_path: Path,
) -> None:
    text = """{"tree": [{"path": "/e", "source": {"command": "x",
  "tool_overrides": {"t": 5, "u": [], "v": {"timeout": 1}},
  "tool_filter": "read_*", "path_aliases": ["a"]}}]}
"""
    assert messages(tmp_path, text) == [
        "broker.json:2:27: error: 'tool_overrides.t' must be an object, got integer",
        "broker.json:2:35: error: 'tool_overrides.u' must be an object, got array",
        "broker.json:3:18: error: 'tool_filter' must be an array of strings, got string",
        "broker.json:3:44: error: 'path_aliases' must be an object, got array",
    ]
