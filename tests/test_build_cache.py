"""The build cache changes how long a build takes, never what it writes."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from mcigen.backend import models
from mcigen.pipeline import CompileOptions, compile_schema
from mcigen.planner import McpAccess, McpMode

from .conftest import ROOT

EXAMPLE = ROOT / "examples" / "incident_digest.mci.yaml"


def _build(tmp_path: Path) -> dict[str, bytes]:
    files, diagnostics = compile_schema(
        EXAMPLE, tmp_path / "pkg", "pkg", CompileOptions(mcp=McpAccess(McpMode.OFFLINE))
    )
    assert files is not None, diagnostics.render()
    return files


def test_a_cached_build_writes_the_same_bytes_as_an_uncached_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MCIGEN_CACHE_DIR", "")
    uncached = _build(tmp_path)
    monkeypatch.setenv("MCIGEN_CACHE_DIR", str(tmp_path / "cache"))
    assert _build(tmp_path) == uncached  # fills the cache
    assert _build(tmp_path) == uncached  # reads it


def test_a_rebuild_with_unchanged_input_schemas_generates_no_models(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MCIGEN_CACHE_DIR", str(tmp_path / "cache"))
    first = _build(tmp_path)

    def refuse(document: object) -> str:
        raise AssertionError("the models should have come from the cache")

    monkeypatch.setattr(models, "_run_codegen", refuse)
    assert _build(tmp_path) == first


def test_an_unusable_cache_directory_only_costs_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocked = tmp_path / "file-not-dir"
    blocked.write_text("")
    monkeypatch.setenv("MCIGEN_CACHE_DIR", str(blocked))
    assert _build(tmp_path)["models.py"]


def test_a_cache_directory_others_may_write_is_not_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = tmp_path / "cache"
    monkeypatch.setenv("MCIGEN_CACHE_DIR", str(cache))
    clean = _build(tmp_path)
    for entry in cache.glob("black-*/*"):  # another user's code in formatted code
        entry.write_text(entry.read_text() + "\nPLANTED = True\n")
    cache.chmod(0o777)
    assert _build(tmp_path) == clean


@pytest.mark.parametrize("kind", ["black", "models"])
def test_a_damaged_entry_is_made_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kind: str
) -> None:
    cache = tmp_path / "cache"
    monkeypatch.setenv("MCIGEN_CACHE_DIR", str(cache))
    clean = _build(tmp_path)
    for entry in cache.glob(f"{kind}-*/*"):
        entry.write_text(entry.read_text()[:-10])
    assert _build(tmp_path) == clean
    assert _build(tmp_path) == clean  # from the entries made again


_FINGERPRINT = """
import json, sys
from mcigen import build_cache

seen = []
sys.addaudithook(
    lambda event, args: seen.append(str(args[0]))
    if event == "open" and str(args[0]).endswith(".jinja") else None
)
build_cache._RACY_NS = int(sys.argv[1])
print(json.dumps({"kind": build_cache.cache_dir("packages").name, "read": len(seen)}))
"""


def _installed(into: Path) -> Path:
    """mcigen's code and templates copied to ``into`` as an install would put them."""
    shutil.rmtree(into, ignore_errors=True)
    pycache = shutil.ignore_patterns("__pycache__")
    shutil.copytree(ROOT / "mcigen", into / "mcigen", ignore=pycache)
    shutil.copytree(ROOT / "templates", into / "templates", ignore=pycache)
    return into


def _start(
    code: Path, cache: Path, racy_ns: int = 0, script: str = _FINGERPRINT
) -> dict[str, Any]:
    """What a fresh process running mcigen from ``code`` finds: its kind of cache
    entries, and how many templates it read to name it (or what else ``script``
    tells)."""
    out = subprocess.run(
        [sys.executable, "-c", script, str(racy_ns)],
        env={**os.environ, "PYTHONPATH": str(code), "MCIGEN_CACHE_DIR": str(cache)},
        cwd=code,
        capture_output=True,
        text=True,
        check=True,
    )
    found: dict[str, Any] = json.loads(out.stdout)
    return found


def test_changed_or_reinstalled_code_of_mcigen_is_told_from_what_the_cache_knows(
    tmp_path: Path,
) -> None:
    """A start names the cache by mcigen's code without reading it while nothing
    of it changed; a file changed in place (same size, same mtime), added, or a
    reinstall of other code are all found; a reinstall of the same code keeps the
    entries."""
    cache = tmp_path / "cache"
    code = _installed(tmp_path / "site")
    first = _start(code, cache)
    assert first["read"] > 0
    assert _start(code, cache) == {"kind": first["kind"], "read": 0}

    source = code / "mcigen" / "diagnostics.py"
    before = source.stat()
    text = source.read_bytes()
    source.write_bytes(text[:-1] + (b"#" if text[-1:] != b"#" else b"\n"))
    os.utime(source, ns=(before.st_atime_ns, before.st_mtime_ns))
    changed = _start(code, cache)
    assert changed["kind"] != first["kind"] and changed["read"] > 0
    assert _start(code, cache) == {"kind": changed["kind"], "read": 0}

    (code / "mcigen" / "added.py").write_text("ADDED = 1\n")
    added = _start(code, cache)
    assert added["kind"] not in (first["kind"], changed["kind"]) and added["read"]

    reinstalled = _start(_installed(code), cache)
    assert reinstalled == {"kind": first["kind"], "read": first["read"]}
    assert _start(code, cache)["read"] == 0


def test_bytecode_written_since_does_not_make_a_start_read_the_code(
    tmp_path: Path,
) -> None:
    """Python writes bytecode as a module is first imported (a lazily loaded one
    long after the start): no source changed, so the memo still holds."""
    cache = tmp_path / "cache"
    code = _installed(tmp_path / "site")
    first = _start(code, cache)
    assert _start(code, cache) == {"kind": first["kind"], "read": 0}
    for folder in (code / "mcigen", code / "mcigen" / "backend"):
        (folder / "__pycache__").mkdir(exist_ok=True)
        (folder / "__pycache__" / "later.cpython-311.pyc").write_bytes(b"\0")
    assert _start(code, cache) == {"kind": first["kind"], "read": 0}


_LISTED = """
import json, sys
from mcigen import build_cache

listed = []
sys.addaudithook(
    lambda event, args: listed.append(args[0]) if event == "os.listdir" else None
)
build_cache._RACY_NS = int(sys.argv[1])
print(json.dumps({"kind": build_cache.cache_dir("packages").name, "listed": listed}))
"""


def test_a_start_lists_only_the_code_folders_whose_times_changed(
    tmp_path: Path,
) -> None:
    """A folder keeps its times until an entry is added, removed or renamed in it:
    one that kept them is not listed; bytecode written since lists its folder,
    still with the same fingerprint, and a module added there is found."""
    cache = tmp_path / "cache"
    code = _installed(tmp_path / "site")
    first = _start(code, cache, script=_LISTED)
    assert first["listed"]
    assert _start(code, cache, script=_LISTED) == {"kind": first["kind"], "listed": []}
    backend = code / "mcigen" / "backend"
    (backend / "__pycache__").mkdir(exist_ok=True)
    assert _start(code, cache, script=_LISTED) == {
        "kind": first["kind"],
        "listed": [str(backend)],
    }
    (backend / "added.py").write_text("ADDED = 1\n")
    assert _start(code, cache, script=_LISTED)["kind"] != first["kind"]


def test_code_written_a_moment_ago_is_read_again_by_the_next_start(
    tmp_path: Path,
) -> None:
    """Change times are coarse: the fingerprint of files written within the last
    two seconds is not kept, so a second write in the same tick cannot hide."""
    cache = tmp_path / "cache"
    code = _installed(tmp_path / "site")
    first = _start(code, cache, racy_ns=60 * 10**9)
    assert _start(code, cache, racy_ns=60 * 10**9) == first
