"""The package built from Ahma's own tool files: clean under mypy --strict and
ruff, and real git through its git tools."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from ..conftest import MypyStrict
from .support import call

BIN = Path(sys.executable).parent


def test_the_package_passes_mypy_strict_and_ruff(
    ahma: str, mypy_strict: MypyStrict
) -> None:
    package = Path(sys.modules[ahma].__file__ or "").parent
    checked = mypy_strict(package.name, cwd=package.parent)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    result = subprocess.run(
        [BIN / "ruff", "check", "--no-cache", package.name],
        cwd=package.parent,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_git_on_a_repository(
    ahma: str, examples: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ahma's git tools, and the example's, whose paths reach git by name (git
    refuses a descriptor path, ``/proc/self/fd/N``, as outside its repository)."""
    monkeypatch.chdir(tmp_path)  # the sandbox root
    repository = tmp_path / "repo"
    repository.mkdir()
    subprocess.run(["git", "init", "-q", str(repository)], check=True)
    for key, value in (("GIT_AUTHOR_NAME", "A"), ("GIT_COMMITTER_NAME", "A")):
        monkeypatch.setenv(key, value)
    for key in ("GIT_AUTHOR_EMAIL", "GIT_COMMITTER_EMAIL"):
        monkeypatch.setenv(key, "a@example.org")
    (repository / "notes.txt").write_text("hello\n")
    where = {"working_directory": str(repository)}

    status = call(ahma, "git_status", short=True, **where)
    assert (status.isError, status.text) == (False, "?? notes.txt\n")
    status = call(examples, "repo_status", short=True, pathspec="notes.txt", **where)
    assert (status.isError, status.text) == (False, "?? notes.txt\n")
    subprocess.run(["git", "add", "notes.txt"], cwd=repository, check=True)
    message = "Add notes\n\nA body that spans\ntwo lines; $(not a command)"
    committed = call(ahma, "git_commit", message=message, **where)
    assert not committed.isError, committed.text
    log = subprocess.run(
        ["git", "log", "--format=%B", "-n", "1"],
        cwd=repository,
        capture_output=True,
        text=True,
        check=True,
    )
    assert log.stdout.rstrip("\n") == message
    log_of_notes = call(examples, "repo_log", oneline=True, path="notes.txt", **where)
    assert log_of_notes.text.endswith(" Add notes\n"), log_of_notes.text
    assert call(ahma, "git_status", short=True, **where).text == ""
