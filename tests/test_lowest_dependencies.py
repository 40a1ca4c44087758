"""The runtime with the oldest versions of its dependencies that its pyproject.toml
allows (``uv pip install --resolution lowest-direct``): a generated package answers
exactly as it does with the versions the suite runs on. A floor set too low shows
here: pydantic 2.11 takes ``Field(exclude_if=...)`` for an unknown extra and prints
``"_meta": null`` into every content item, and 2.12.0 warns on every serialized
result (so the floor is 2.12.2)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import ROOT
from .oracle import installer, uv

CALL = (
    "import warnings; warnings.simplefilter('error'); "
    "from greetings import greet; "
    "print(greet(name='World', language='de').model_dump_json())"
)


def _answer(python: Path | str) -> str:
    done = subprocess.run(
        [str(python), "-c", CALL],
        cwd=ROOT / "golden",
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT / "golden")},
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_the_runtime_at_its_lowest_dependencies_answers_the_same(
    tmp_path: Path,
) -> None:
    venv = tmp_path / "lowest"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", venv], check=True)
    python = venv / "bin" / "python"
    if uv() is None:
        pytest.skip("uv is not in the test venv (make install puts it there)")
    lowest = ["--resolution", "lowest-direct", str(ROOT / "runtime")]
    install = [*installer(python), *lowest]
    subprocess.run(install, check=True, capture_output=True)
    assert _answer(python) == _answer(sys.executable)
