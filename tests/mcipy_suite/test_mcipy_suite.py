"""mci-py 1.2's own tests of its public ``MCIClient``, run against ``mcigen.MCIClient``.

The sdist on PyPI ships ``tests/``; they run in a pytest of their own, with
``shim/`` first on the path (its ``mcipy`` is ``mcigen.MCIClient``) and the
``mcipy_public_api`` plugin, which leaves out the modules that test mci-py's
internal classes and skips the tests that use one. Every test that still fails
is a deliberate difference, with its row in COMPATIBILITY.md.
"""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys
import tarfile
import xml.etree.ElementTree as ElementTree
from collections import Counter
from pathlib import Path
from typing import Any

from ..oracle import MCI_PY, ROOT

SHIM = Path(__file__).resolve().parent / "shim"
SDIST_DIR = ROOT / ".cache" / "mcipy-sdist"

DIFFERENCES = {
    "tests.unit.test_validating_mode.TestValidatingModeWithToolsets"
    "::test_toolset_validating_mode": 65,
}
"""Each test mci-py passes and mcigen fails on purpose -> its COMPATIBILITY row."""


def mcipy_sources() -> Path:
    """mci-py's sdist, unpacked (downloaded from PyPI once, under a lock)."""
    SDIST_DIR.mkdir(parents=True, exist_ok=True)
    with open(SDIST_DIR / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        unpacked = sorted(SDIST_DIR.glob("mci_py-*/tests"))
        if not unpacked:
            subprocess.run(
                [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps"]
                + ["--no-binary", ":all:", "--dest", str(SDIST_DIR), MCI_PY],
                check=True,
                capture_output=True,
            )
            (archive,) = SDIST_DIR.glob("mci_py-*.tar.gz")
            with tarfile.open(archive) as sdist:
                sdist.extractall(SDIST_DIR, filter="data")
            unpacked = sorted(SDIST_DIR.glob("mci_py-*/tests"))
    return unpacked[0].parent


def _outcomes(report: Path) -> dict[str, str]:
    outcomes = {}
    for case in ElementTree.parse(report).iter("testcase"):
        found = {child.tag for child in case} & {"failure", "error", "skipped"}
        test = f"{case.get('classname')}::{case.get('name')}"
        outcomes[test] = found.pop() if found else "passed"
    return outcomes


def test_mci_pys_public_api_tests_pass_against_mcigen(
    tmp_path: Path, record_property: Any
) -> None:
    sources = mcipy_sources()
    report = tmp_path / "report.xml"
    env = {
        **os.environ,
        "PYTHONPATH": str(SHIM),
        "MCIGEN_CACHE_DIR": str(tmp_path / "build-cache"),
        # as in our own suite: plugins named, not every installed one's asserts rewritten
        "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
    }
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
        + ["-p", "mcipy_public_api", "-p", "anyio.pytest_plugin"]
        + ["--junitxml", str(report)]
        + ["--basetemp", str(tmp_path / "runs"), "tests"],
        cwd=sources,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    outcomes = _outcomes(report)
    counts = Counter(outcomes.values())
    failed = {test for test, outcome in outcomes.items() if outcome != "passed"}
    failed -= {test for test, outcome in outcomes.items() if outcome == "skipped"}
    record_property(
        "mcipy_suite",
        f"mci-py 1.2's public-API tests against mcigen.MCIClient: {counts['passed']} "
        f"passed, {len(failed)} failed (each a COMPATIBILITY row), "
        f"{counts['skipped']} skipped (they use mci-py's internal classes)",
    )
    assert failed == set(DIFFERENCES), done.stdout[-4000:]
    assert counts["passed"] >= 100


def test_each_difference_has_its_row() -> None:
    compatibility = (ROOT / "COMPATIBILITY.md").read_text(encoding="utf-8")
    for test, row in DIFFERENCES.items():
        assert f"| {row} |" in compatibility
        assert test.rpartition("::")[2] in compatibility
