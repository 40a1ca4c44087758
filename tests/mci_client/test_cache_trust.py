"""``MCIClient`` imports code from its build cache, so it takes a package from there
only when no other user could have put it there, and only as it was stored: a
cache another user owns or may write is not used (the package is built in a private
directory instead), and a damaged or tampered entry is built again."""

from __future__ import annotations

import importlib.util
import json
import logging
import marshal
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks.cache_settling import wait_until_settled
from mcigen import MCIClient, build_cache
from mcigen import package_cache as package_cache_module

from .greetings import CLIENT_SCRIPT, greetings, run_client

NOBODY = 65534


def _package_dir(cache: Path) -> Path:
    (record,) = cache.rglob("entry.json")
    package: str = json.loads(record.read_text())["package"]
    return record.parent / package


def _marker_code(marker: Path) -> str:
    return f"\nopen({str(marker)!r}, 'w').close()\n"


HELLO = "Hello Bob, from Ada"


@pytest.fixture(scope="module")
def schema(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The greetings schema, at one path for the module's tests: a cache's entry
    is keyed by it, so that a copy of a filled cache is a filled cache."""
    return greetings(tmp_path_factory.mktemp("greetings"))


@pytest.fixture(scope="module")
def filled(tmp_path_factory: pytest.TempPathFactory, schema: Path) -> Path:
    """A cache the client of ``schema`` filled, for tests to copy (a build costs
    a second or two of CPU): a copy keeps its files' modes and times (its
    bytecode's header among them) and is taken from, not built again."""
    cache = tmp_path_factory.mktemp("filled") / "cache"
    assert run_client(schema, cache)["text"] == HELLO
    probe = tmp_path_factory.mktemp("probe") / "cache"
    shutil.copytree(cache, probe, symlinks=True)
    assert not run_client(schema, probe)["compiled"]
    return cache


def _filled_cache(filled: Path, cache: Path) -> Path:
    """A copy of the filled cache at ``cache``; its package's directory."""
    shutil.copytree(filled, cache, symlinks=True)
    return _package_dir(cache)


def _plant(package: Path, marker: Path) -> None:
    """What another user who could write the cache would do: code of theirs in a
    module, and the entry's record made to agree with it."""
    module = package / "tools" / "main.py"
    module.write_text(module.read_text() + _marker_code(marker))
    record_path = package.parent / "entry.json"
    record = json.loads(record_path.read_text())
    files = record.get("files", {})
    for relative in list(files):
        path = package / relative
        if path.is_file():
            files[relative] = _sha256(path)
    record_path.write_text(json.dumps(record))


def _sha256(path: Path) -> str:
    import hashlib

    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_cache_directory_others_may_write_is_not_used_and_the_user_is_told(
    schema: Path,
    filled: Path,
    tmp_path: Path,
    package_cache: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    marker = tmp_path / "planted-code-ran"
    package = _filled_cache(filled, package_cache)
    _plant(package, marker)
    package_cache.chmod(0o777)
    assert run_client(schema, package_cache)["text"] == HELLO
    assert not marker.exists()
    with caplog.at_level(logging.WARNING, logger="mcigen"):
        client = MCIClient(str(schema), env_vars={"WHO": "Ada"})
    assert client.execute("bye").result.content[0].text == "Bye Ada"
    assert not marker.exists()
    (warning,) = {record.getMessage() for record in caplog.records}
    assert str(package_cache) in warning
    assert "writable by group or others" in warning
    assert "MCIGEN_CACHE_DIR" in warning and "chmod" in warning


@pytest.mark.parametrize("mode", [0o775, 0o757])
def test_a_group_or_other_writable_entry_inside_the_cache_is_not_used(
    schema: Path, filled: Path, tmp_path: Path, package_cache: Path, mode: int
) -> None:
    marker = tmp_path / "planted-code-ran"
    package = _filled_cache(filled, package_cache)
    _plant(package, marker)
    (package / "tools").chmod(mode)
    assert run_client(schema, package_cache)["text"] == HELLO
    assert not marker.exists()


@pytest.mark.skipif(os.geteuid() != 0, reason="only root can give a file away")
def test_a_cache_owned_by_another_user_is_not_used(
    schema: Path, filled: Path, tmp_path: Path, package_cache: Path
) -> None:
    marker = tmp_path / "planted-code-ran"
    package = _filled_cache(filled, package_cache)
    _plant(package, marker)
    for path in [package_cache, *package_cache.rglob("*")]:
        os.lchown(path, NOBODY, NOBODY)
    answer = subprocess.run(
        [sys.executable, "-c", CLIENT_SCRIPT, str(schema)],
        env={**os.environ, "MCIGEN_CACHE_DIR": str(package_cache)},
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(answer.stdout)["text"] == HELLO
    assert not marker.exists()
    assert f"{package_cache} is owned by uid {NOBODY}" in answer.stderr


def test_a_directory_above_the_cache_others_may_write_makes_it_untrusted(
    schema: Path,
    filled: Path,
    tmp_path: Path,
) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    cache = shared / "cache"
    marker = tmp_path / "planted-code-ran"
    package = _filled_cache(filled, cache)
    _plant(package, marker)
    shared.chmod(0o777)  # anyone may rename the cache aside and put theirs there
    assert run_client(schema, cache)["text"] == HELLO
    assert not marker.exists()
    shared.chmod(0o1777)  # sticky, as /tmp: no one may rename what is not theirs
    assert run_client(schema, cache)["text"] == HELLO
    assert marker.exists()  # the cache is trusted again: its entry (ours) is used


def test_a_new_cache_is_private(tmp_path: Path, schema: Path) -> None:
    cache = tmp_path / "new" / "cache"
    assert run_client(schema, cache)["text"] == HELLO
    for directory in [
        cache.parent,
        cache,
        *(p for p in cache.rglob("*") if p.is_dir()),
    ]:
        assert directory.stat().st_mode & 0o777 == 0o700, directory
    for file in (p for p in cache.rglob("*") if p.is_file()):
        assert file.stat().st_mode & 0o077 == 0, file


def test_a_changed_byte_in_a_cached_module_is_built_again_not_run(
    schema: Path, filled: Path, tmp_path: Path, package_cache: Path
) -> None:
    marker = tmp_path / "tampered-code-ran"
    package = _filled_cache(filled, package_cache)
    module = package / "tools" / "main.py"
    module.write_text(module.read_text() + _marker_code(marker))
    assert run_client(schema, package_cache)["text"] == HELLO
    assert not marker.exists()
    assert _marker_code(marker) not in module.read_text()  # rebuilt in place


def test_tampered_bytecode_beside_an_intact_module_is_not_run(
    schema: Path, filled: Path, tmp_path: Path, package_cache: Path
) -> None:
    marker = tmp_path / "tampered-code-ran"
    package = _filled_cache(filled, package_cache)
    module = package / "tools" / "main.py"
    source = module.read_text()
    bytecode = Path(importlib.util.cache_from_source(str(module)))
    header = bytecode.read_bytes()[:16]  # source mtime and size: still valid
    code = compile(source + _marker_code(marker), str(module), "exec")
    bytecode.write_bytes(header + marshal.dumps(code))
    assert run_client(schema, package_cache)["text"] == HELLO
    assert not marker.exists()


def test_a_module_added_to_a_cached_package_is_built_again_away(
    schema: Path, filled: Path, tmp_path: Path, package_cache: Path
) -> None:
    marker = tmp_path / "added-code-ran"
    package = _filled_cache(filled, package_cache)
    shadow = package / "tools" / "main"  # a package wins over tools/main.py
    shadow.mkdir()
    (shadow / "__init__.py").write_text(_marker_code(marker))
    answer = subprocess.run(
        [sys.executable, "-c", CLIENT_SCRIPT, str(schema)],
        env={**os.environ, "MCIGEN_CACHE_DIR": str(package_cache)},
        capture_output=True,
        text=True,
    )
    assert not marker.exists()
    assert json.loads(answer.stdout)["text"] == HELLO, answer.stderr
    assert not shadow.exists()


def test_a_cached_package_missing_a_module_is_built_again(
    schema: Path, filled: Path, tmp_path: Path, package_cache: Path
) -> None:
    package = _filled_cache(filled, package_cache)
    (package / "tools" / "main.py").unlink()
    assert run_client(schema, package_cache)["text"] == HELLO
    assert (package / "tools" / "main.py").is_file()


def test_a_hit_reads_no_file_the_build_left_as_it_was(
    tmp_path: Path, package_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The files of an entry as its build left them are known by their inode, size
    and times: a client's start does not read the package to hash it (at 1000 tools,
    7 MB; at 5000, 36 MB). Times within a clock tick of when the build took them
    are not trusted: the first hit once they are settled hashes the files and
    records their statuses, and no later hit reads them."""
    schema = greetings(tmp_path)
    assert run_client(schema, package_cache)["text"] == HELLO
    hashed: list[str] = []
    hash_of = package_cache_module._hash_of

    def counted(path: str) -> str:
        hashed.append(path)
        return hash_of(path)

    monkeypatch.setattr(package_cache_module, "_hash_of", counted)
    package = _package_dir(package_cache)
    wait_until_settled(package)
    assert package_cache_module.package_for(schema, True, {}).directory == package
    assert hashed  # taken by the build within a tick of their times: read once
    hashed.clear()
    found = package_cache_module.package_for(schema, True, {})
    assert hashed == [] and found.directory == package


def test_bytecode_rewritten_in_place_with_its_size_and_times_is_not_run(
    tmp_path: Path, package_cache: Path
) -> None:
    """A write changes a file's status change time, which no process but root's can
    set back: bytecode rewritten in place, its inode, size and modification time
    kept, is hashed, and the entry built again."""
    schema = greetings(tmp_path)
    assert run_client(schema, package_cache)["text"] == HELLO
    marker = tmp_path / "tampered-code-ran"
    module = _package_dir(package_cache) / "tools" / "main.py"
    bytecode = Path(importlib.util.cache_from_source(str(module)))
    stored, status = bytecode.read_bytes(), bytecode.stat()
    tampered = _same_size_bytecode(stored, _marker_code(marker))
    bytecode.write_bytes(tampered)
    os.utime(bytecode, ns=(status.st_atime_ns, status.st_mtime_ns))
    assert (bytecode.stat().st_ino, bytecode.stat().st_size) == (
        status.st_ino,
        status.st_size,
    )
    assert run_client(schema, package_cache)["text"] == HELLO
    assert not marker.exists()
    assert bytecode.read_bytes() != tampered  # built again in place


def test_bytecode_rewritten_in_the_clock_tick_its_status_was_taken_in_is_not_run(
    tmp_path: Path, package_cache: Path
) -> None:
    """Change times are kept to a clock tick: a rewrite in the tick in which the
    build took the file's status (after it hashed the file) leaves the status as
    recorded. The record here is made to hold the rewritten file's status, as
    such a build would; a status that recent is not trusted, so the bytecode is
    hashed, and the entry built again."""
    schema = greetings(tmp_path)
    assert run_client(schema, package_cache)["text"] == HELLO
    marker = tmp_path / "tampered-code-ran"
    package = _package_dir(package_cache)
    bytecode = Path(
        importlib.util.cache_from_source(str(package / "tools" / "main.py"))
    )
    stored, status = bytecode.read_bytes(), bytecode.stat()
    tampered = _same_size_bytecode(stored, _marker_code(marker))
    bytecode.write_bytes(tampered)
    os.utime(bytecode, ns=(status.st_atime_ns, status.st_mtime_ns))
    record_path = package.parent / "entry.json"
    record = json.loads(record_path.read_text())
    relative = bytecode.relative_to(package).as_posix()
    record["statuses"][relative] = build_cache.file_status(bytecode.stat())
    record_path.write_text(json.dumps(record))
    assert run_client(schema, package_cache)["text"] == HELLO
    assert not marker.exists()
    assert bytecode.read_bytes() != tampered  # built again in place


def _same_size_bytecode(stored: bytes, source: str) -> bytes:
    """``stored``'s header (still valid for its module) and the code of ``source``,
    padded to ``stored``'s size."""

    def code(padding: int) -> bytes:
        padded = f"{source}\n_ = {'x' * padding!r}\n"
        return stored[:16] + marshal.dumps(compile(padded, "main.py", "exec"))

    padding = 300 + len(stored) - len(code(300))  # a long string: a byte a char
    assert padding >= 300 and len(code(padding)) == len(stored)
    return code(padding)
