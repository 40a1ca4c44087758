"""``python -m pkg doctor``, run as a real process on a built package whose
manifest is given availability probes (as an MTDF build writes them), with real
commands: ``true``, ``false``, a program that does not exist, a ``sleep`` that
outlives its timeout."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from mcigen import ir
from mcigen.backend.runtime_link import vendored_runtime

from ..conftest import run_mcigen, schema_of, text_tool, write_schema

PACKAGE = "doctorpkg"


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("doctor")
    schema = write_schema(
        folder, schema_of(text_tool("first", "1"), text_tool("second", "2"))
    )
    assert run_mcigen("build", schema, "-o", folder / PACKAGE).returncode == 0
    return folder / PACKAGE


def _doctor(
    built: Path, tmp_path: Path, probes: dict[str, list[ir.Probe]]
) -> subprocess.CompletedProcess[str]:
    """Run the doctor of a copy of the package whose tools have ``probes``."""
    package = shutil.copytree(built, tmp_path / PACKAGE)
    manifest_path = package / "manifest.json"
    manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    for tool in manifest["tools"]:
        if tool["name"] in probes:
            tool["probes"] = [p.as_dict() for p in probes[tool["name"]]]
    manifest_path.write_text(json.dumps(manifest), encoding="utf-8")
    return subprocess.run(
        [sys.executable, "-m", PACKAGE, "doctor"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def _probe(
    subject: str,
    *argv: str,
    success_exit_codes: tuple[int, ...] = (0,),
    working_directory: str | None = None,
    timeout_ms: int = 10_000,
    install_instructions: str | None = None,
) -> ir.Probe:
    return ir.Probe(
        subject,
        argv,
        success_exit_codes,
        working_directory,
        timeout_ms,
        install_instructions,
    )


def test_a_package_without_probes_says_so(built: Path, tmp_path: Path) -> None:
    result = _doctor(built, tmp_path, {})
    assert result.returncode == 0, result.stderr
    assert result.stdout == "No tool of this package has an availability check.\n"


def test_all_passing_exits_0_and_a_shared_probe_runs_once(
    built: Path, tmp_path: Path
) -> None:
    marker = tmp_path / "runs"
    counting = _probe("shell", "sh", "-c", f"echo run >> {marker}")
    result = _doctor(built, tmp_path, {"first": [counting], "second": [counting]})
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        "ok       shell (2 tools)",
        "",
        "1 probe(s): 1 passed, 0 missing.",
    ]
    assert marker.read_text() == "run\n"


def test_what_is_missing_is_named_with_its_tools_and_install_text(
    built: Path, tmp_path: Path
) -> None:
    passing = _probe("true", "true")
    failing = _probe("false", "false", install_instructions="apt install false")
    absent = _probe("ghost", "mcigen-no-such-program", "--version")
    result = _doctor(
        built,
        tmp_path,
        {"first": [passing, failing], "second": [passing, absent]},
    )
    assert result.returncode == 1, result.stderr
    assert result.stderr == ""
    assert result.stdout.splitlines() == [
        "ok       true (2 tools)",
        "MISSING  false",
        "  ran:     false",
        "  result:  exited with code 1",
        "  tools:   first",
        "  install: apt install false",
        "MISSING  ghost",
        "  ran:     mcigen-no-such-program --version",
        "  result:  [Errno 2] No such file or directory: 'mcigen-no-such-program'",
        "  tools:   second",
        "",
        "3 probe(s): 1 passed, 2 missing.",
    ]


def test_exit_codes_stderr_and_working_directory_decide(
    built: Path, tmp_path: Path
) -> None:
    (tmp_path / "here").mkdir()
    (tmp_path / "here" / "marker").touch()
    probes = [
        _probe("three", "sh", "-c", "exit 3", success_exit_codes=(0, 3)),
        _probe(
            "marker", "test", "-f", "marker", working_directory=str(tmp_path / "here")
        ),
        _probe(
            "noisy",
            "sh",
            "-c",
            "echo 'error: no such command' >&2; echo more >&2; exit 101",
        ),
        _probe("nowhere", "true", working_directory=str(tmp_path / "absent")),
    ]
    result = _doctor(built, tmp_path, {"first": probes})
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    assert "ok       three (1 tool)" in lines
    assert "ok       marker (1 tool)" in lines
    assert "  result:  exited with code 101: error: no such command" in lines
    assert any(
        line.startswith("  result:  cannot enter its working directory: [Errno 2]")
        for line in lines
    )


def test_a_probe_past_its_timeout_is_missing_and_killed(
    built: Path, tmp_path: Path
) -> None:
    pid_file = tmp_path / "pid"
    slow = _probe(
        "slow", "sh", "-c", f"sleep 30 & echo $! > {pid_file}; wait", timeout_ms=300
    )
    result = _doctor(built, tmp_path, {"first": [slow]})
    assert result.returncode == 1
    assert "  result:  Command '['sh', '-c'," in result.stdout
    assert "timed out after 0.3 seconds" in result.stdout
    sleeper = int(pid_file.read_text())
    deadline = time.monotonic() + 2
    while _alive(sleeper) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not _alive(sleeper)


def test_output_is_capped(built: Path, tmp_path: Path) -> None:
    endless = _probe("endless", "yes")
    result = _doctor(built, tmp_path, {"first": [endless]})
    assert result.returncode == 1
    assert (
        "  result:  Command stopped: its stdout passed the cli_output limit of 65536 bytes."
        in result.stdout
    )


def _alive(pid: int) -> bool:
    try:
        status = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return status.rsplit(")", 1)[1].split()[0] != "Z"


def test_a_vendored_runtime_carries_the_doctor_only_for_probed_tools() -> None:
    def manifest(**tool: object) -> dict[str, bytes]:
        return {"manifest.json": json.dumps({"tools": [tool]}).encode()}

    probed = vendored_runtime(manifest(probes=[_probe("x", "x").as_dict()]))
    unprobed = vendored_runtime(manifest(name="plain"))
    assert {"_runtime/app/doctor.py", "_runtime/executors/cli/run.py"} <= set(probed)
    assert "_runtime/app/doctor.py" not in unprobed
    assert "_runtime/executors/cli/run.py" not in unprobed
