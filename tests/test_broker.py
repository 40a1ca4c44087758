"""The broker: ``meta_tree`` / ``meta_desc`` / ``meta_call`` over a real built package
with the schema's own tools, a toolset, an MCP server (from its cache) and names
that need care; truncation of large answers."""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from mcigen_runtime.broker import truncation

from .conftest import built_package, text_tool, write_schema

PACKAGE = "brokerpkg"

GREET_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "description": "Who", "examples": ["Ada", "Bo"]},
        "language": {"type": "string", "enum": ["en", "de"], "default": "en"},
        "mood": {"type": "string", "enum": ["calm", "loud"]},
        "count": {"type": "integer"},
        "ratio": {"type": "number"},
        "loud": {"type": "boolean"},
        "tags": {"type": "array", "items": {"type": "string"}},
        "extra": {"type": "object"},
        "nickname": {"type": "string"},
        "level": {"type": "integer", "examples": [3]},
    },
    "required": ["name", "mood", "count", "ratio", "loud", "tags", "extra"],
}

LISTING_TEXT = (
    '{"items": [@for(i in range(0, props.n)){"id": {{i}}, "name": "item {{i}}", '
    '"body": "{{props.body}}"}, @endfor{"id": -1}], "total": {{props.n}}}'
)

SCHEMA: dict[str, Any] = {
    "schemaVersion": "1.0",
    "metadata": {"name": "Broker demo", "description": "Tools behind a broker"},
    "tools": [
        text_tool(
            "greet",
            "Hello {{props.name}} ({{props.language}})",
            description="Greet someone.\nLonger explanation on a second line.",
            inputSchema=GREET_SCHEMA,
            annotations={"readOnlyHint": True},
            tags=["people"],
        ),
        text_tool("Beta", "beta"),
        text_tool("alpha", "alpha", description="First of all."),
        text_tool("util", "the schema's util"),
        text_tool("util~tool", "a tool that is really called util~tool"),
        text_tool("mcp", "the schema's mcp"),
        text_tool(
            "envy",
            "team={{env.BROKER_TEAM | 'none'}}",
            description="Reads the environment.",
        ),
        text_tool(
            "nested",
            "depth {{props.cfg.depth}}",
            inputSchema={
                "type": "object",
                "properties": {
                    "cfg": {
                        "type": "object",
                        "properties": {
                            "depth": {"type": "integer"},
                            "label": {"type": "string", "default": "x"},
                        },
                        "required": ["depth"],
                    },
                    "maybe": {"type": ["string", "null"]},
                },
                "required": ["cfg", "maybe"],
            },
        ),
        text_tool(
            "big",
            "@for(i in range(0, props.n))line {{i}}: lorem ipsum dolor sit amet\n@endfor",
            inputSchema={
                "type": "object",
                "properties": {"n": {"type": "integer", "default": 200}},
            },
        ),
        text_tool(
            "listing",
            LISTING_TEXT,
            inputSchema={
                "type": "object",
                "properties": {
                    "n": {"type": "integer", "default": 3},
                    "body": {"type": "string", "default": "b"},
                },
            },
        ),
        {
            "name": "shout",
            "description": "Echo through a real process.",
            "inputSchema": {
                "type": "object",
                "properties": {"word": {"type": "string"}},
                "required": ["word"],
            },
            "execution": {
                "type": "cli",
                "command": sys.executable,
                "args": [
                    "-c",
                    "import sys; print(sys.argv[1].upper())",
                    "{{props.word}}",
                ],
            },
        },
    ],
    "toolsets": ["util"],
    "mcp_servers": {"files": {"command": "false-server-never-started"}},
}

TOOLSET: dict[str, Any] = {
    "schemaVersion": "1.0",
    "tools": [
        text_tool("ping", "pong", description="Answer pong."),
        text_tool("a/b", "slash"),
        text_tool("100%", "percent"),
    ],
}


def mcp_tool(name: str, description: str, schema: dict[str, Any]) -> dict[str, Any]:
    return {
        "name": name,
        "description": description,
        "inputSchema": schema,
        "execution": {"type": "mcp", "serverName": "files", "toolName": name},
    }


READ_SCHEMA: dict[str, Any] = {
    "$schema": "http://json-schema.org/draft-07/schema#",
    "type": "object",
    "properties": {"path": {"type": "string"}, "head": {"type": "number"}},
    "required": ["path"],
}

MCP_CACHE: dict[str, Any] = {
    "schemaVersion": "1.0",
    "metadata": {"name": "files", "description": "MCP server: files"},
    "tools": [
        mcp_tool("read_file", "Read a file.\nAs text.", READ_SCHEMA),
        mcp_tool("list_dir", "List a directory.", {"type": "object", "properties": {}}),
    ],
    "expiresAt": "2099-12-31",
}


@pytest.fixture(scope="module")
def pkg(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    directory = tmp_path_factory.mktemp("broker")
    library = directory / "mci"
    (library / "mcp").mkdir(parents=True)
    (library / "util.mci.json").write_text(json.dumps(TOOLSET), encoding="utf-8")
    (library / "mcp" / "files.mci.json").write_text(
        json.dumps(MCP_CACHE, indent=2), encoding="utf-8"
    )
    schema = write_schema(directory, SCHEMA, "main.mci.json")
    with built_package(schema, directory / PACKAGE) as package:
        yield package


@pytest.fixture(scope="module")
def runtime(pkg: ModuleType) -> Any:
    """The generated package's own copy of the broker module."""
    from importlib import import_module

    return import_module("mcigen_runtime.broker.meta_tools")


@pytest.fixture(scope="module")
def registry(pkg: ModuleType) -> Any:
    from importlib import import_module

    return import_module("mcigen_runtime.registry").registry(PACKAGE)


@pytest.fixture(scope="module")
def broker(runtime: Any, registry: Any) -> Any:
    return runtime.Broker(registry)


def child_paths(answer: dict[str, Any]) -> list[str]:
    return [child["path"] for child in answer["children"]]


def manifest(pkg: ModuleType) -> dict[str, Any]:
    path = Path(pkg.__file__ or "").parent / "manifest.json"
    document: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return document


def size(value: Any) -> int:
    return len(json.dumps(value, ensure_ascii=False))


# -- the tree --------------------------------------------------------------------


def test_the_root_lists_nodes_first_then_tools_each_sorted_by_name(broker: Any) -> None:
    answer = broker.tree("/")
    assert answer["path"] == "/"
    assert answer["children"][:2] == [
        {"path": "/mcp", "type": "node", "summary": "MCP servers"},
        {"path": "/util", "type": "node", "summary": "toolset 'util'"},
    ]
    assert child_paths(answer)[2:] == [
        "/alpha",
        "/Beta",
        "/big",
        "/envy",
        "/greet",
        "/listing",
        "/mcp~tool",
        "/nested",
        "/shout",
        "/util~tool",
        "/util~tool2",
    ]
    greet = next(c for c in answer["children"] if c["path"] == "/greet")
    assert greet == {"path": "/greet", "type": "tool", "summary": "Greet someone."}
    assert broker.tree() == answer


def test_a_toolset_is_a_node_with_its_tools_as_leaves_slashes_escaped(
    broker: Any,
) -> None:
    assert broker.tree("/util") == {
        "path": "/util",
        "children": [
            {"path": "/util/100%25", "type": "tool", "summary": ""},
            {"path": "/util/a%2Fb", "type": "tool", "summary": ""},
            {"path": "/util/ping", "type": "tool", "summary": "Answer pong."},
        ],
    }
    assert broker.call("/util/a%2Fb", {})["content"][0]["text"] == "slash"
    assert broker.call("/util/a%2fb", {})["content"][0]["text"] == "slash"
    assert broker.call("/util/100%25", {})["content"][0]["text"] == "percent"
    assert broker.call("/util/100%", {})["content"][0]["text"] == "percent"
    assert broker.desc("/util/a%2Fb")["name"] == "a/b"
    with pytest.raises(ValueError, match="no node or tool at '/util/a/b'"):
        broker.desc("/util/a/b")


def test_mcp_servers_are_nodes_under_mcp(broker: Any) -> None:
    assert broker.tree("/mcp") == {
        "path": "/mcp",
        "children": [
            {"path": "/mcp/files", "type": "node", "summary": "MCP server 'files'"}
        ],
    }
    assert broker.tree("/mcp/files") == {
        "path": "/mcp/files",
        "children": [
            {
                "path": "/mcp/files/list_dir",
                "type": "tool",
                "summary": "List a directory.",
            },
            {"path": "/mcp/files/read_file", "type": "tool", "summary": "Read a file."},
        ],
    }
    described = broker.desc("/mcp/files/read_file")
    assert described["args_schema"] == READ_SCHEMA
    assert described["example_args"] == {"path": ""}
    assert described["description"] == "Read a file.\nAs text."


@pytest.mark.parametrize(
    "spelling", ["/util/", "util", "util/", "//util//", "/util///"]
)
def test_paths_are_accepted_with_or_without_slashes(broker: Any, spelling: str) -> None:
    assert broker.tree(spelling)["path"] == "/util"


def test_names_taken_by_nodes_give_the_tool_a_tilde_name(broker: Any) -> None:
    """Nodes win: the tool 'util' is /util~tool... unless a tool is really called
    that, which keeps its name; 'mcp' next to MCP servers is /mcp~tool."""
    assert broker.desc("/util~tool")["name"] == "util~tool"
    assert broker.desc("/util~tool2")["name"] == "util"
    assert broker.desc("/mcp~tool")["name"] == "mcp"
    assert broker.call("/util~tool2")["content"][0]["text"] == "the schema's util"
    assert broker.call("/mcp~tool")["content"][0]["text"] == "the schema's mcp"
    assert broker.paths()["util"] == "/util~tool2"
    assert broker.paths()["ping"] == "/util/ping"


def test_tree_refuses_unknown_paths_and_tool_leaves(broker: Any, runtime: Any) -> None:
    with pytest.raises(
        runtime.BrokerError,
        match=r"no node or tool at '/utill'; did you mean '/util'\?",
    ):
        broker.tree("/utill")
    with pytest.raises(
        runtime.BrokerError, match="no node or tool at '/nowhere/at/all'"
    ):
        broker.tree("/nowhere/at/all")
    with pytest.raises(runtime.BrokerError, match="'/greet' is a tool, not a node"):
        broker.tree("/greet")
    with pytest.raises(runtime.BrokerError, match="'/util/ping' is a tool"):
        broker.tree("/util/ping/")
    with pytest.raises(runtime.BrokerError, match="path must be a string"):
        broker.tree(3)
    assert issubclass(runtime.BrokerError, ValueError)


# -- desc --------------------------------------------------------------------------


def test_desc_of_nodes(broker: Any) -> None:
    root = broker.desc("/")
    assert root == {
        "path": "/",
        "type": "node",
        "summary": "Broker demo: Tools behind a broker",
        "description": "Tools behind a broker",
        "children": broker.tree("/")["children"],
    }
    assert broker.desc("/util") == {
        "path": "/util",
        "type": "node",
        "summary": "toolset 'util'",
        "children": broker.tree("/util")["children"],
    }
    assert broker.desc("/mcp/files/")["summary"] == "MCP server 'files'"
    assert broker.desc("/mcp")["summary"] == "MCP servers"


def test_desc_of_a_tool(broker: Any) -> None:
    answer = broker.desc("/greet")
    assert answer == {
        "path": "/greet",
        "type": "tool",
        "name": "greet",
        "summary": "Greet someone.",
        "description": "Greet someone.\nLonger explanation on a second line.",
        "args_schema": GREET_SCHEMA,
        "example_args": answer["example_args"],
        "annotations": {"readOnlyHint": True},
        "tags": ["people"],
    }
    bare = broker.desc("/util/ping")
    assert bare["args_schema"] == {"type": "object", "properties": {}}
    assert bare["example_args"] == {}
    assert "annotations" not in bare and "tags" not in bare


def test_args_schema_is_exactly_the_manifests_input_schema(
    pkg: ModuleType, broker: Any
) -> None:
    paths = broker.paths()
    tools = manifest(pkg)["tools"]
    assert sorted(paths) == sorted(tool["name"] for tool in tools)
    for tool in tools:
        schema = broker.desc(paths[tool["name"]])["args_schema"]
        expected = tool["inputSchema"]
        assert schema == (
            expected if expected is not None else {"type": "object", "properties": {}}
        )
    # An answer is a copy: changing it changes nothing for the next caller.
    broker.desc("/greet")["args_schema"]["properties"].clear()
    assert broker.desc("/greet")["args_schema"] == GREET_SCHEMA


def test_example_args_from_examples_defaults_and_types(broker: Any) -> None:
    assert broker.desc("/greet")["example_args"] == {
        "name": "Ada",
        "language": "en",
        "mood": "calm",
        "count": 0,
        "ratio": 0,
        "loud": False,
        "tags": [],
        "extra": {},
        "level": 3,
    }
    assert broker.desc("/nested")["example_args"] == {
        "cfg": {"depth": 0, "label": "x"},
        "maybe": "",
    }
    assert broker.desc("/listing")["example_args"] == {"n": 3, "body": "b"}


def test_example_args_are_accepted_by_every_tool(broker: Any) -> None:
    for name, path in broker.paths().items():
        if path.startswith("/mcp/"):
            continue  # would start the server
        answer = broker.call(path, broker.desc(path)["example_args"])
        assert answer["isError"] is False, (name, answer)


# -- call --------------------------------------------------------------------------


def test_call_returns_the_tools_result_as_json(broker: Any) -> None:
    answer = broker.call("/greet", {**broker.desc("/greet")["example_args"]})
    assert answer == {
        "path": "/greet",
        "isError": False,
        "content": [{"type": "text", "text": "Hello Ada (en)"}],
        "metadata": None,
    }
    json.dumps(answer)
    shout = broker.call("shout/", {"word": "hey"})
    assert shout["path"] == "/shout"
    assert shout["content"][0]["text"].strip() == "HEY"
    assert shout["isError"] is False


def test_call_refuses_nodes_unknown_paths_and_bad_args(
    broker: Any, runtime: Any
) -> None:
    with pytest.raises(runtime.BrokerError, match="'/util' is a node, not a tool"):
        broker.call("/util", {})
    with pytest.raises(runtime.BrokerError, match="'/' is a node"):
        broker.call("/", {})
    with pytest.raises(runtime.BrokerError, match="did you mean '/greet'"):
        broker.call("/gret", {})
    with pytest.raises(runtime.BrokerError, match="must be an object, got list"):
        broker.call("/greet", ["Ada"])
    with pytest.raises(runtime.BrokerError) as raised:
        broker.call("/shout", {"word": 42})
    assert raised.value.field == "word"
    assert raised.value.path == "/shout"
    assert "invalid args for '/shout': 'word':" in str(raised.value)
    with pytest.raises(runtime.BrokerError) as missing:
        broker.call("/nested", {"cfg": {}, "maybe": None})
    assert missing.value.field == "cfg.depth"
    assert "'cfg.depth': Field required" in str(missing.value)


def test_env_is_read_at_call_time_or_given(
    runtime: Any, registry: Any, broker: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("BROKER_TEAM", raising=False)
    assert broker.call("/envy")["content"][0]["text"] == "team=none"
    monkeypatch.setenv("BROKER_TEAM", "blue")
    assert broker.call("/envy")["content"][0]["text"] == "team=blue"
    given = runtime.Broker(registry, env={"BROKER_TEAM": "red"})
    assert given.call("/envy")["content"][0]["text"] == "team=red"


def test_call_async(broker: Any, runtime: Any) -> None:
    async def calls() -> list[dict[str, Any]]:
        return list(
            await asyncio.gather(
                broker.call_async("/shout", {"word": "async"}),
                broker.call_async("/util/ping"),
            )
        )

    shout, ping = asyncio.run(calls())
    assert shout["content"][0]["text"].strip() == "ASYNC"
    assert ping == {
        "path": "/util/ping",
        "isError": False,
        "content": [{"type": "text", "text": "pong"}],
        "metadata": None,
    }
    with pytest.raises(runtime.BrokerError) as raised:
        asyncio.run(broker.call_async("/shout", {}))
    assert raised.value.field == "word"


def test_a_subset_of_tools_keeps_every_path(runtime: Any, registry: Any) -> None:
    chosen = [t for t in registry.tools if t.name in ("util", "ping", "read_file")]
    broker = runtime.Broker(registry, tools=chosen)
    assert child_paths(broker.tree("/")) == ["/mcp", "/util", "/util~tool2"]
    assert child_paths(broker.tree("/util")) == ["/util/ping"]
    assert child_paths(broker.tree("/mcp/files")) == ["/mcp/files/read_file"]
    with pytest.raises(runtime.BrokerError, match="no node or tool"):
        broker.desc("/greet")
    only_own = runtime.Broker(registry, tools=[registry.find("greet")])
    assert child_paths(only_own.tree("/")) == ["/greet"]
    with pytest.raises(runtime.BrokerError, match="no node or tool at '/mcp'"):
        only_own.tree("/mcp")


def test_constructor_checks_its_arguments(runtime: Any, registry: Any) -> None:
    with pytest.raises(ValueError, match="max_output_chars must be a positive"):
        runtime.Broker(registry, max_output_chars=0)
    stranger = registry.find("greet").__class__(
        **{**registry.find("greet").__dict__, "name": "stranger"}
    )
    with pytest.raises(ValueError, match="not tools of package 'brokerpkg': stranger"):
        runtime.Broker(registry, tools=[stranger])


# -- meta-tools ---------------------------------------------------------------------


def test_meta_tools_are_mcp_tool_definitions(runtime: Any) -> None:
    tools = {tool["name"]: tool for tool in runtime.META_TOOLS}
    assert list(tools) == ["meta_tree", "meta_desc", "meta_call"]
    for tool in tools.values():
        assert tool["description"]
        assert tool["inputSchema"]["type"] == "object"
        assert tool["inputSchema"]["properties"]["path"]["type"] == "string"
    assert tools["meta_tree"]["inputSchema"]["properties"]["path"]["default"] == "/"
    assert "required" not in tools["meta_tree"]["inputSchema"]
    assert tools["meta_desc"]["inputSchema"]["required"] == ["path"]
    call = tools["meta_call"]["inputSchema"]
    assert call["required"] == ["path"]
    assert call["properties"]["args"]["type"] == "object"
    json.dumps(runtime.META_TOOLS)


def test_call_meta_dispatches_by_name(broker: Any, runtime: Any) -> None:
    assert broker.call_meta("meta_tree", {}) == broker.tree("/")
    assert broker.call_meta("meta_tree", None) == broker.tree("/")
    assert broker.call_meta("meta_desc", {"path": "/util"}) == broker.desc("/util")
    called = broker.call_meta("meta_call", {"path": "/util/ping"})
    assert called["content"][0]["text"] == "pong"
    called = asyncio.run(
        broker.call_meta_async("meta_call", {"path": "/shout", "args": {"word": "x"}})
    )
    assert called["content"][0]["text"].strip() == "X"
    assert (
        asyncio.run(broker.call_meta_async("meta_desc", {"path": "/"}))["path"] == "/"
    )
    with pytest.raises(runtime.BrokerError, match="no meta-tool 'meta_run'"):
        broker.call_meta("meta_run", {})
    with pytest.raises(runtime.BrokerError, match="meta_desc needs a 'path'"):
        broker.call_meta("meta_desc", {})
    with pytest.raises(runtime.BrokerError, match="must be an object"):
        broker.call_meta("meta_call", "/greet")


def test_the_generated_meta_module(pkg: ModuleType, broker: Any) -> None:
    from importlib import import_module

    meta = import_module(f"{PACKAGE}.meta")
    assert meta.meta_tree() == broker.tree("/")
    assert meta.meta_tree("/util") == broker.tree("/util")
    assert meta.meta_desc("/greet") == broker.desc("/greet")
    assert meta.meta_call("/util/ping")["content"] == [{"type": "text", "text": "pong"}]
    assert meta.meta_call("/shout", {"word": "m"})["content"][0]["text"].strip() == "M"
    with pytest.raises(ValueError, match="'word'"):
        meta.meta_call("/shout", {"word": 1})


# -- truncation --------------------------------------------------------------------


def test_answers_within_the_limit_are_not_wrapped(runtime: Any, registry: Any) -> None:
    broker = runtime.Broker(registry, max_output_chars=10_000)
    assert broker.call("/util/ping") == runtime.Broker(registry).call("/util/ping")


def test_a_long_string_is_cut_and_the_wrapper_says_so(
    runtime: Any, registry: Any
) -> None:
    full = runtime.Broker(registry).call("/big")
    text = full["content"][0]["text"]
    broker = runtime.Broker(registry, max_output_chars=1000)
    answer = broker.call("/big")
    assert size(answer) <= 1000
    assert set(answer) == {
        "truncated",
        "original_chars",
        "max_output_chars",
        "note",
        "result",
    }
    assert answer["truncated"] is True
    assert answer["original_chars"] == size(full)
    assert answer["max_output_chars"] == 1000
    result = answer["result"]
    assert {k: result[k] for k in ("path", "isError", "metadata")} == {
        "path": "/big",
        "isError": False,
        "metadata": None,
    }
    cut = result["content"][0]["text"]
    kept, marker = cut.split("… [+")
    assert text.startswith(kept) and len(kept) > 500
    assert marker == f"{len(text) - len(kept)} chars]"
    assert answer["note"] == (
        f"cut 1 string to {len(kept)} chars ({len(text) - len(kept)} chars left out)."
        " '…' marks each cut."
    )
    assert broker.call("/big") == answer  # deterministic


def test_a_long_list_in_json_text_is_compacted_keeping_its_structure(
    runtime: Any, registry: Any
) -> None:
    args = {"n": 300, "body": "word " * 60}
    full = runtime.Broker(registry).call("/listing", args)
    original = json.loads(full["content"][0]["text"])
    assert len(original["items"]) == 301
    broker = runtime.Broker(registry, max_output_chars=3000)
    answer = broker.call("/listing", args)
    assert size(answer) <= 3000
    value = json.loads(answer["result"]["content"][0]["text"])  # still valid JSON
    assert set(value) == {"items", "total"} and value["total"] == 300
    items = value["items"]
    marker = items[-1]
    assert isinstance(marker, str) and marker.startswith("… [+")
    kept = items[:-1]
    assert 3 <= len(kept) < 300
    assert marker == f"… [+{301 - len(kept)} items]"
    for index, item in enumerate(kept):
        assert item["id"] == index and item["name"] == f"item {index}"
        assert item["body"].startswith("word word") and item["body"].endswith(" chars]")
    note = answer["note"]
    assert (
        f"1 list to at most {len(kept)} items ({301 - len(kept)} items left out)"
        in note
    )
    assert f"{len(kept)} strings to " in note
    assert "the JSON in 1 text item was cut inside and re-serialized compactly" in note


@pytest.mark.parametrize("limit", [180, 250, 400, 700, 1500, 4000, 10_000])
def test_truncated_answers_fit_the_limit(
    runtime: Any, registry: Any, limit: int
) -> None:
    broker = runtime.Broker(registry, max_output_chars=limit)
    for path, args in (
        ("/big", {"n": 400}),
        ("/listing", {"n": 200, "body": "z" * 99}),
    ):
        answer = broker.call(path, args)
        assert answer["truncated"] is True
        assert size(answer) <= limit, (path, limit, answer)
        assert answer["result"] is not None
        assert broker.call(path, args) == answer


def test_truncation_of_metadata_objects_media_and_many_items() -> None:
    answer = {
        "path": "/x",
        "isError": True,
        "content": [
            {"type": "image", "data": "A" * 5000, "mimeType": "image/png"},
            *({"type": "text", "text": f"part {i}"} for i in range(50)),
        ],
        "metadata": {"headers": {f"h{i}": "v" * 20 for i in range(300)}, "status": 500},
    }
    out = truncation.truncate_answer(answer, 1200)
    assert size(out) <= 1200
    result = out["result"]
    assert result["path"] == "/x" and result["isError"] is True
    image = result["content"][0]
    assert image == {
        "type": "image",
        "data": "… [5000 chars of base64 image data]",
        "mimeType": "image/png",
    }
    assert result["content"][-1].startswith("… [+") and result["content"][-1].endswith(
        " items]"
    )
    headers = result["metadata"]["headers"]
    assert headers["…"].startswith("+") and headers["…"].endswith(" keys")
    assert list(headers)[:2] == ["h0", "h1"]
    assert "the data of 1 image/audio item" in out["note"]
    assert out == truncation.truncate_answer(answer, 1200)


def test_a_tiny_limit_falls_back_to_text_or_nothing() -> None:
    answer = {
        "path": "/x",
        "isError": False,
        "content": [{"type": "text", "text": "x" * 1000}],
        "metadata": None,
    }
    small = truncation.truncate_answer(answer, 200)
    assert size(small) <= 200
    assert isinstance(small["result"], str) and small["result"].startswith(
        '{"path": "/x"'
    )
    nothing = truncation.truncate_answer(answer, 50)
    assert nothing["result"] is None and nothing["truncated"] is True


# -- without MCP servers, a tool may be called mcp -----------------------------------


def test_without_mcp_servers_the_name_mcp_is_free(tmp_path: Path) -> None:
    document = {"schemaVersion": "1.0", "tools": [text_tool("mcp", "plain")]}
    schema = write_schema(tmp_path, document, "solo.mci.json")
    with built_package(schema, tmp_path / "solopkg"):
        from importlib import import_module

        meta = import_module("solopkg.meta")
        assert meta.meta_tree() == {
            "path": "/",
            "children": [{"path": "/mcp", "type": "tool", "summary": ""}],
        }
        assert meta.meta_desc("/")["summary"] == "the tools of 'solopkg'"
        assert meta.meta_call("/mcp")["content"][0]["text"] == "plain"


# -- a tree whose leaves carry their own settings (a broker config's overrides) ----


def with_tree(registry: Any, nodes: list[Any], leaves: list[Any]) -> Any:
    """The package's registry serving another tree over the same tools."""
    from importlib import import_module

    tree = import_module("mcigen_runtime.tree")
    return type(registry)(
        registry.package,
        registry.metadata,
        registry.tools,
        tree.Tree(
            tuple(tree.TreeNode(*node) for node in nodes),
            tuple(tree.TreeLeaf(**leaf) for leaf in leaves),
        ),
        servers=registry.servers,
        build=registry.build,
    )


def test_a_leaf_shows_its_own_summary_and_example_args(
    runtime: Any, registry: Any
) -> None:
    served = with_tree(
        registry,
        [("/", "Team tools"), ("/people", "Who is who", "Long text")],
        [
            {
                "path": "/people/hello",
                "tool": "greet",
                "summary": "Say hello",
                "example_args": {"name": "Ada", "mood": "calm"},
            },
            {"path": "/people/plain", "tool": "greet"},
        ],
    )
    broker = runtime.Broker(served)
    assert broker.tree("/") == {
        "path": "/",
        "children": [{"path": "/people", "type": "node", "summary": "Who is who"}],
    }
    assert [c["summary"] for c in broker.tree("/people")["children"]] == [
        "Say hello",
        "Greet someone.",
    ]
    hello = broker.desc("/people/hello")
    assert hello["summary"] == "Say hello"
    assert hello["description"].startswith("Greet someone.\nLonger")
    assert hello["example_args"] == {"name": "Ada", "mood": "calm"}
    # The compiler settles example args; the runtime makes none up for a leaf.
    assert "example_args" not in broker.desc("/people/plain")
    assert broker.desc("/people")["description"] == "Long text"


def test_a_leafs_max_output_chars_wins_over_the_brokers(
    runtime: Any, registry: Any
) -> None:
    served = with_tree(
        registry,
        [("/", "")],
        [
            {"path": "/cut", "tool": "big", "max_output_chars": 600},
            {"path": "/whole", "tool": "big"},
        ],
    )
    broker = runtime.Broker(served, max_output_chars=5000)
    cut = broker.call("/cut")
    assert cut["truncated"] is True and cut["max_output_chars"] == 600
    assert size(cut) <= 600
    whole = broker.call("/whole")
    assert whole["max_output_chars"] == 5000
    assert runtime.Broker(served).call("/cut")["max_output_chars"] == 600
    assert "truncated" not in runtime.Broker(served).call("/whole")


def test_a_subset_leaves_out_the_nodes_it_emptied_and_keeps_empty_ones(
    runtime: Any, registry: Any
) -> None:
    served = with_tree(
        registry,
        [
            ("/", ""),
            ("/empty", "Nothing here yet"),
            ("/a", "A"),
            ("/a/b", "B"),
            ("/c", "C"),
            ("/c/later", "Later"),
        ],
        [
            {"path": "/a/b/alpha", "tool": "alpha"},
            {"path": "/beta", "tool": "Beta"},
            {"path": "/c/gamma", "tool": "Beta"},
        ],
    )
    everything = runtime.Broker(served)
    assert child_paths(everything.tree("/")) == ["/a", "/c", "/empty", "/beta"]
    assert everything.desc("/")["summary"] == f"the tools of '{PACKAGE}'"
    subset = runtime.Broker(served, tools=[registry.find("alpha")])
    assert child_paths(subset.tree("/")) == ["/a", "/c", "/empty"]
    assert child_paths(subset.tree("/a/b")) == ["/a/b/alpha"]
    assert child_paths(subset.tree("/c")) == ["/c/later"]
    assert subset.tree("/empty") == {"path": "/empty", "children": []}
    only_beta = runtime.Broker(served, tools=[registry.find("Beta")])
    assert child_paths(only_beta.tree("/")) == ["/c", "/empty", "/beta"]


@pytest.mark.parametrize(
    ("meta_tool", "arguments", "reason"),
    [
        ("meta_tree", {"path": "/utill"}, "unknown_path"),
        ("meta_tree", {"path": "/greet"}, "not_a_node"),
        ("meta_call", {"path": "/util"}, "not_a_tool"),
        ("meta_call", {"path": "/shout", "args": {"word": 42}}, "invalid_args"),
        ("meta_call", {"path": "/greet", "args": ["Ada"]}, "invalid_request"),
        ("meta_desc", {"path": 3}, "invalid_request"),
        ("meta_nothing", {}, "invalid_request"),
    ],
)
def test_each_refusal_says_which_mistake_it_is(
    broker: Any, runtime: Any, meta_tool: str, arguments: Any, reason: str
) -> None:
    """What the HTTP API turns into its status (404, 409, 422 or 400)."""
    with pytest.raises(runtime.BrokerError) as raised:
        broker.call_meta(meta_tool, arguments)
    assert raised.value.reason == reason
