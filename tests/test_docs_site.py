"""The documentation site builds as ``make docs`` builds it, ``mkdocs build
--strict``: a link to a page or an anchor that is not there, or a page that
includes a file that is not there, fails this test."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_the_site_builds_with_no_warning(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(tmp_path)],
        cwd=ROOT,  # the snippets' base path: pages include COMPATIBILITY.md
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "compatibility" / "index.html").is_file()
