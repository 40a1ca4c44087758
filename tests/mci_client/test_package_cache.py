"""``MCIClient`` compiles a schema once: later clients, in this process or another,
take the package from the build cache until an input changes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

import mcigen.pipeline
from benchmarks.cache_settling import wait_until_settled
from mcigen import MCIClient, MCIClientError

from ..conftest import (
    leaves_a_trace,
    run_mcigen,
    schema_of,
    text_tool,
    write_schema,
)
from ..mcp_servers import TOY_SERVER
from .greetings import CLIENT_SCRIPT, greetings, run_client


def _snapshot(directory: Path) -> dict[str, tuple[int, int]]:
    return {
        str(path.relative_to(directory)): (path.stat().st_size, path.stat().st_mtime_ns)
        for path in sorted(directory.rglob("*"))
        if "__pycache__" not in path.parts
    }


def test_a_second_process_takes_the_package_from_the_cache_without_building(
    tmp_path: Path, package_cache: Path, record_property: Any
) -> None:
    schema = greetings(tmp_path)
    first = run_client(schema, package_cache)
    assert first["text"] == "Hello Bob, from Ada"
    assert first["tools"] == ["greet", "bye"]
    assert first["compiled"] is True
    wait_until_settled(tmp_path)  # the schema's and toolset's statuses too
    run_client(schema, package_cache)  # records the statuses the build took
    before = _snapshot(package_cache)
    second = run_client(schema, package_cache)
    # nor the IR, nor yaml for a JSON schema: 0.1 s of a 1000-tool client's start;
    # nor what only a build writes with (bytecode) or warns through (logging)
    compiled = {"compiled": False, "loaded": [], "seconds": 0}
    assert {**second, "seconds": 0} == {**first, **compiled}
    assert _snapshot(package_cache) == before  # nothing written, nothing rebuilt
    record_property(
        "timing",
        f"MCIClient + one call in a new process: {first['seconds'] * 1000:.0f} ms "
        f"building, {second['seconds'] * 1000:.0f} ms from the cache",
    )


def test_an_edited_toolset_or_schema_is_compiled_again(
    tmp_path: Path, package_cache: Path
) -> None:
    schema = greetings(tmp_path)
    assert MCIClient(str(schema)).list_tools() == ["greet", "bye"]
    toolset = tmp_path / "mci" / "farewells.mci.json"
    document = json.loads(toolset.read_text())
    document["tools"].append(text_tool("later", "See you"))
    toolset.write_text(json.dumps(document))
    assert MCIClient(str(schema)).list_tools() == ["greet", "bye", "later"]
    schema.write_text(schema.read_text().replace('"greet"', '"hello"'))
    client = MCIClient(str(schema), env_vars={"WHO": "Ada"})
    assert client.list_tools() == ["hello", "bye", "later"]
    assert client.execute("hello", {"name": "Bob"}).result.content[0].text == (
        "Hello Bob, from Ada"
    )


@pytest.mark.parametrize("key", ["libraryDir", "library\\u0044ir"])
def test_an_edited_toolset_of_a_library_dir_named_in_the_schema_is_compiled_again(
    tmp_path: Path, package_cache: Path, key: str
) -> None:
    """However the schema spells the key (JSON lets it escape any letter)."""
    schema = greetings(tmp_path)
    (tmp_path / "mci").rename(tmp_path / "shared")
    text = schema.read_text().replace("{", f'{{"{key}": "./shared", ', 1)
    schema.write_text(text)
    assert MCIClient(str(schema)).list_tools() == ["greet", "bye"]
    toolset = tmp_path / "shared" / "farewells.mci.json"
    document = json.loads(toolset.read_text())
    document["tools"].append(text_tool("later", "See you"))
    toolset.write_text(json.dumps(document))
    assert MCIClient(str(schema)).list_tools() == ["greet", "bye", "later"]


def test_a_refused_edit_leaves_the_cached_package_for_the_schema_it_was_built_from(
    tmp_path: Path, package_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    schema = greetings(tmp_path)
    working = schema.read_text()
    MCIClient(str(schema))
    schema.write_text(working.replace('"text"', '"telnet"', 1))
    with pytest.raises(MCIClientError, match="Invalid execution type 'telnet'"):
        MCIClient(str(schema))
    schema.write_text(working)

    def no_build(*args: object, **kwargs: object) -> None:
        raise AssertionError("the package should have come from the cache")

    monkeypatch.setattr(mcigen.pipeline, "compile_schema", no_build)
    assert MCIClient(str(schema)).list_tools() == ["greet", "bye"]


def test_a_cached_package_removed_by_hand_is_built_again(
    tmp_path: Path, package_cache: Path
) -> None:
    schema = greetings(tmp_path)
    MCIClient(str(schema))
    (record,) = package_cache.rglob("entry.json")
    package = record.parent / json.loads(record.read_text())["package"]
    (package / "__init__.py").unlink()
    script = [sys.executable, "-c", CLIENT_SCRIPT, str(schema)]
    done = subprocess.run(script, capture_output=True, text=True, check=True)
    assert json.loads(done.stdout)["text"] == "Hello Bob, from Ada"
    assert (package / "__init__.py").is_file()


def test_two_processes_building_at_once_both_get_the_package(
    tmp_path: Path, package_cache: Path
) -> None:
    schema = greetings(tmp_path)
    command = [sys.executable, "-c", CLIENT_SCRIPT, str(schema)]
    env = {**os.environ, "MCIGEN_CACHE_DIR": str(package_cache)}
    running = [
        subprocess.Popen(command, env=env, stdout=subprocess.PIPE, text=True)
        for _ in range(2)
    ]
    answers = [json.loads(process.communicate()[0]) for process in running]
    assert [answer["text"] for answer in answers] == ["Hello Bob, from Ada"] * 2
    (slot,) = [path for path in package_cache.rglob("*") if path.name == "library"]
    entries = [path for path in slot.parent.iterdir() if path.is_dir()]
    assert len(entries) == 1 and not entries[0].name.startswith(".")


def test_without_a_cache_directory_every_client_compiles_and_works(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MCIGEN_CACHE_DIR", "")
    client = MCIClient(str(greetings(tmp_path)), env_vars={"WHO": "Ada"})
    assert client.execute("bye").result.content[0].text == "Bye Ada"


def _toy_schema(directory: Path, **config: Any) -> Path:
    directory.mkdir(exist_ok=True)
    server = {"command": sys.executable, "args": ["{{env.TOY}}", "stdio"], **config}
    document = {"schemaVersion": "1.0", "tools": [], "mcp_servers": {"toy": server}}
    return write_schema(directory, document, "main.mci.json")


def test_mcp_servers_settings_read_the_clients_env_vars_to_fetch(
    tmp_path: Path, package_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("TOY", raising=False)
    schema = _toy_schema(tmp_path)
    client = MCIClient(str(schema), env_vars={"TOY": str(TOY_SERVER)})
    assert "echo" in client.list_tools()
    echoed = client.execute("echo", {"text": "hi"}).result.content[0].text
    assert echoed == "hi"
    assert (tmp_path / "mci" / "mcp" / "toy.mci.json").is_file()


def test_a_package_built_from_an_mcp_cache_that_has_since_expired_is_built_again(
    tmp_path: Path, package_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    env = {"TOY": str(TOY_SERVER)}
    schema = _toy_schema(tmp_path)
    builds = []
    compile_schema = mcigen.pipeline.compile_schema

    def counted(*args: Any, **kwargs: Any) -> Any:
        builds.append(args[0])
        return compile_schema(*args, **kwargs)

    monkeypatch.setattr(mcigen.pipeline, "compile_schema", counted)
    MCIClient(str(schema), env_vars=env)
    MCIClient(str(schema), env_vars=env)
    assert len(builds) == 1
    server_cache = tmp_path / "mci" / "mcp" / "toy.mci.json"
    (record,) = package_cache.rglob("entry.json")
    written = json.loads(record.read_text())
    assert written["expires"] == json.loads(server_cache.read_text())["expiresAt"]
    record.write_text(json.dumps({**written, "expires": "2000-01-01"}))  # time passes
    assert "echo" in MCIClient(str(schema), env_vars=env).list_tools()
    assert len(builds) == 2  # the build decides whether to fetch (here: not yet)
    rewritten = json.loads(record.read_text())
    assert rewritten.pop("statuses_ns") >= written.pop("statuses_ns")  # taken anew
    assert rewritten == written
    MCIClient(str(schema), env_vars=env)
    assert len(builds) == 2


def test_validating_starts_no_server_writes_nothing_and_runs_nothing(
    tmp_path: Path, package_cache: Path
) -> None:
    """Nothing beside the schema, and nothing in the build cache either."""
    project = tmp_path / "project"
    project.mkdir()
    command, trace = leaves_a_trace(project)
    document = {
        "schemaVersion": "1.0",
        "tools": [text_tool("hello", "Hello")],
        "mcp_servers": {"tracer": {"command": command}},
    }
    schema = write_schema(project, document, "main.mci.json")
    before = _snapshot(project)
    client = MCIClient(str(schema), validating=True)
    assert client.list_tools() == ["hello"]
    with pytest.raises(MCIClientError, match="disabled in validating mode"):
        client.execute("hello")
    assert not trace.exists()
    assert _snapshot(project) == before
    assert not package_cache.exists()


def _aged(path: Path, days: float) -> None:
    then = time.time() - days * 86_400
    os.utime(path, (then, then), follow_symlinks=False)


def _entry_of(cache: Path, schema_dir: Path) -> Path:
    """The package cache's entry of the schema in ``schema_dir``: its slot's
    ``library`` file names the schema's library directory."""
    (slot,) = [
        record.parent
        for record in cache.rglob("library")
        if str(schema_dir / "mci") in record.read_text()
    ]
    (entry,) = [path for path in slot.iterdir() if (path / "entry.json").is_file()]
    return entry


def _tool_schema(directory: Path, tool: str) -> Path:
    directory.mkdir()
    greet = text_tool(
        tool,
        "Hi {{props.who}}",
        inputSchema={"type": "object", "properties": {"who": {"type": "string"}}},
    )
    return write_schema(directory, schema_of(greet))


def test_the_cache_drops_what_no_build_used_for_a_month(
    tmp_path: Path, package_cache: Path
) -> None:
    stale, recent = _tool_schema(tmp_path / "a", "ahoy"), _tool_schema(
        tmp_path / "b", "hey"
    )
    MCIClient(str(stale))
    MCIClient(str(recent))
    stale_entry, recent_entry = (_entry_of(package_cache, tmp_path / n) for n in "ab")
    for path in package_cache.rglob("*"):
        _aged(path, 40)  # unused since
    for path in [recent_entry.parent, *recent_entry.parent.rglob("*")]:
        _aged(path, 20)  # used within the month
    _aged(package_cache, 40)
    MCIClient(str(_tool_schema(tmp_path / "c", "hello")))  # the day's first build
    assert not stale_entry.exists()
    assert recent_entry.is_dir()
    month_ago = time.time() - 30 * 86_400
    left = [p for p in package_cache.rglob("*") if p.lstat().st_mtime < month_ago]
    assert left == []
    assert MCIClient(str(recent)).execute("hey", {"who": "Ada"}).result.text == "Hi Ada"


def test_a_schema_in_a_folder_whose_name_is_not_utf8_builds_and_is_called(
    tmp_path: Path, package_cache: Path
) -> None:
    """The manifest names the input as the file system does: an undecodable byte of
    its path is a lone surrogate, written as its JSON escape, and the cache's
    records keep the bytes (both failed with an internal error)."""
    from mcigen_runtime.manifest import MANIFEST, read_manifest

    folder = Path(os.fsdecode(os.fsencode(tmp_path) + b"/caf\xe9"))
    folder.mkdir()
    schema = write_schema(folder, schema_of(text_tool("hi", "Hi {{props.who}}")))
    built = run_mcigen("build", schema, "-o", tmp_path / "pkg")
    assert built.returncode == 0, built.stderr
    manifest = read_manifest((tmp_path / "pkg" / MANIFEST).read_bytes())
    assert os.fsencode(manifest.build["input"]).endswith(b"/caf\xe9/tools.mci.json")
    for _ in ("built into the cache", "taken from it"):
        client = MCIClient(schema_file_path=str(schema))
        assert client.execute("hi", {"who": "Ann"}).result.content[0].text == "Hi Ann"
    assert len(list(package_cache.glob("packages-*/*/*/entry.json"))) == 1
