"""The doctor of a package built from MTDF files: the probes the build derives
from ``availability_check`` (AHMA-SEMANTICS §8.8), run for real."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from mcigen_runtime.registry import registry

from ..conftest import imported_package, run_mcigen

TOOLS = {
    "present": {
        "name": "present",
        "description": "Probed with true",
        "command": "echo",
        "synchronous": True,
        "availability_check": {"command": "true"},
        "subcommand": [{"name": "default", "description": "Echo"}],
    },
    "absent": {
        "name": "absent",
        "description": "A program this machine lacks",
        "command": "mcigen-no-such-program",
        "synchronous": True,
        "install_instructions": "pip install absent",
        "subcommand": [{"name": "default", "description": "Run it"}],
    },
}


def test_row_97_a_failed_probe_is_reported_and_the_tool_kept(tmp_path: Path) -> None:
    folder = tmp_path / "tools"
    folder.mkdir()
    for name, document in TOOLS.items():
        (folder / f"{name}.json").write_text(json.dumps(document), encoding="utf-8")
    assert run_mcigen("build", folder, "-o", tmp_path / "probed").returncode == 0
    doctor = subprocess.run(
        [sys.executable, "-m", "probed", "doctor"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert doctor.returncode == 1, doctor.stderr
    assert doctor.stdout.splitlines() == [
        "ok       sandboxed_shell (1 tool)",  # Ahma's built-in shell: bash
        "MISSING  absent",
        "  ran:     /usr/bin/env which mcigen-no-such-program",
        "  result:  exited with code 1",
        "  tools:   absent",
        "  install: pip install absent",
        "ok       present (1 tool)",
        "",
        "3 probe(s): 2 passed, 1 missing.",
    ]
    # Ahma hides the tool and answers "unavailable"; here it stays and says why
    with imported_package(tmp_path / "probed") as package:
        assert [tool.name for tool in registry("probed").tools] == [
            "sandboxed_shell",
            "absent",
            "present",
        ]
        result = package.absent()
        assert result.isError
        assert "mcigen-no-such-program" in result.text
