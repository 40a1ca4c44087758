"""A cached client finds its entry without reading the schema and its toolsets
again while their statuses (inode, size, times, device) are those a hit read them
with, as git's index does; any write, replacement or addition is seen."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from ..conftest import text_tool, write_schema
from .greetings import greetings

_CLIENT = textwrap.dedent("""
    import json, sys
    from mcigen import MCIClient, build_cache

    build_cache._RACY_NS = int(sys.argv[2])
    watched, read = set(sys.argv[3:]), []
    sys.addaudithook(
        lambda event, args: read.append(str(args[0]))
        if event == "open" and str(args[0]) in watched else None
    )
    client = MCIClient(schema_file_path=sys.argv[1], env_vars={"WHO": "Ada"})
    texts = [
        client.execute(name, {"name": "Bob"}).result.content[0].text
        for name in client.list_tools()
    ]
    print(json.dumps({"texts": texts, "read": sorted(set(read))}))
    """)
_SETTLED_AT_ONCE = 0
_SETTLED_IN_A_MINUTE = 60 * 10**9


def _start(schema: Path, cache: Path, racy_ns: int) -> dict[str, Any]:
    """What a new process's client answers, and which of the schema and toolset
    it opened (statuses within ``racy_ns`` of their times are not trusted)."""
    toolset = schema.parent / "mci" / "farewells.mci.json"
    done = subprocess.run(
        [sys.executable, "-c", _CLIENT, str(schema), str(racy_ns)]
        + [str(schema), str(toolset)],
        env={**os.environ, "MCIGEN_CACHE_DIR": str(cache)},
        capture_output=True,
        text=True,
        check=True,
    )
    answer: dict[str, Any] = json.loads(done.stdout)
    return answer


def _files(directory: Path) -> dict[str, tuple[int, int, int]]:
    return {
        str(path): (path.stat().st_ino, path.stat().st_size, path.stat().st_mtime_ns)
        for path in sorted(directory.rglob("*"))
        if "__pycache__" not in path.parts
    }


_GREETED = ["Hello Bob, from Ada", "Bye Ada"]


def test_a_start_with_inputs_unchanged_since_a_hit_reads_none_and_writes_nothing(
    tmp_path: Path, package_cache: Path
) -> None:
    schema = greetings(tmp_path)
    inputs = sorted([str(schema), str(tmp_path / "mci" / "farewells.mci.json")])
    built = _start(schema, package_cache, _SETTLED_AT_ONCE)
    assert built == {"texts": _GREETED, "read": inputs}
    remembered = _start(schema, package_cache, _SETTLED_AT_ONCE)  # hashed: kept
    assert remembered == built
    before = _files(package_cache)
    assert _start(schema, package_cache, _SETTLED_AT_ONCE) == {
        "texts": _GREETED,
        "read": [],
    }
    assert _files(package_cache) == before


def _rewritten(path: Path, old: str, new: str) -> None:
    """``old`` replaced by ``new`` (as long) in place, the modification time put
    back: only the change time tells."""
    status = path.stat()
    path.write_text(path.read_text().replace(old, new))
    os.utime(path, ns=(status.st_atime_ns, status.st_mtime_ns))
    assert (path.stat().st_ino, path.stat().st_size) == (status.st_ino, status.st_size)


def _replaced(path: Path, old: str, new: str) -> None:
    """A new file of the same size moved over ``path``, with its times."""
    status = path.stat()
    other = path.with_name(".replacement")
    other.write_text(path.read_text().replace(old, new))
    os.utime(other, ns=(status.st_atime_ns, status.st_mtime_ns))
    other.replace(path)
    assert path.stat().st_ino != status.st_ino


@pytest.mark.parametrize(
    ("edit", "edited", "texts"),
    [
        (_rewritten, "schema", ["Hallo Bob, from Ada", "Bye Ada"]),
        (_rewritten, "toolset", ["Hello Bob, from Ada", "Cya Ada"]),
        (_replaced, "schema", ["Hallo Bob, from Ada", "Bye Ada"]),
        (_replaced, "toolset", ["Hello Bob, from Ada", "Cya Ada"]),
    ],
)
def test_an_input_written_or_replaced_since_it_was_remembered_is_read_again(
    tmp_path: Path,
    package_cache: Path,
    edit: Any,
    edited: str,
    texts: list[str],
) -> None:
    schema = greetings(tmp_path)
    _start(schema, package_cache, _SETTLED_AT_ONCE)
    _start(schema, package_cache, _SETTLED_AT_ONCE)
    assert _start(schema, package_cache, _SETTLED_AT_ONCE)["read"] == []
    if edited == "schema":
        edit(schema, "Hello", "Hallo")
    else:
        edit(tmp_path / "mci" / "farewells.mci.json", "Bye", "Cya")
    assert _start(schema, package_cache, _SETTLED_AT_ONCE)["texts"] == texts
    assert _start(schema, package_cache, _SETTLED_AT_ONCE)["texts"] == texts


def test_a_file_added_to_the_library_or_a_folder_of_it_is_read(
    tmp_path: Path, package_cache: Path
) -> None:
    """Every file of the library directory keys the cache: a folder's times tell
    a file added to it."""
    schema = greetings(tmp_path)
    inputs = sorted([str(schema), str(tmp_path / "mci" / "farewells.mci.json")])
    (tmp_path / "mci" / "more").mkdir()
    (tmp_path / "mci" / "more" / "a.txt").write_text("a")
    for added in (tmp_path / "mci" / "more" / "b.txt", tmp_path / "mci" / "c.txt"):
        _start(schema, package_cache, _SETTLED_AT_ONCE)  # builds
        _start(schema, package_cache, _SETTLED_AT_ONCE)  # hashes: kept
        assert _start(schema, package_cache, _SETTLED_AT_ONCE)["read"] == []
        entries = len(list(package_cache.rglob("entry.json")))
        added.write_text("added")
        assert _start(schema, package_cache, _SETTLED_AT_ONCE) == {
            "texts": _GREETED,
            "read": inputs,
        }
        assert len(list(package_cache.rglob("entry.json"))) == entries + 1


def test_a_library_directory_made_since_is_read(
    tmp_path: Path, package_cache: Path
) -> None:
    """A schema without one is remembered as such."""
    document = {"schemaVersion": "1.0", "tools": [text_tool("hi", "Hi")]}
    schema = write_schema(tmp_path, document, "lone.mci.json")
    _start(schema, package_cache, _SETTLED_AT_ONCE)
    _start(schema, package_cache, _SETTLED_AT_ONCE)
    assert _start(schema, package_cache, _SETTLED_AT_ONCE) == {
        "texts": ["Hi"],
        "read": [],
    }
    (tmp_path / "mci").mkdir()
    (tmp_path / "mci" / "notes.txt").write_text("a file of the library")
    found = _start(schema, package_cache, _SETTLED_AT_ONCE)
    assert found == {"texts": ["Hi"], "read": [str(schema)]}
    assert len(list(package_cache.rglob("entry.json"))) == 2


def test_inputs_written_a_moment_ago_are_read_by_every_start(
    tmp_path: Path, package_cache: Path
) -> None:
    """Change times are coarse: a status taken within a clock tick of its times
    could be that of a file written again in the same tick, so it is not kept,
    and an edit then is seen however little it changes."""
    schema = greetings(tmp_path)
    inputs = sorted([str(schema), str(tmp_path / "mci" / "farewells.mci.json")])
    _start(schema, package_cache, _SETTLED_IN_A_MINUTE)
    hit = _start(schema, package_cache, _SETTLED_IN_A_MINUTE)
    assert hit == {"texts": _GREETED, "read": inputs}
    assert not list(package_cache.rglob("inputs"))
    _rewritten(schema, "Hello", "Hallo")
    edited = _start(schema, package_cache, _SETTLED_IN_A_MINUTE)
    assert edited == {"texts": ["Hallo Bob, from Ada", "Bye Ada"], "read": inputs}
