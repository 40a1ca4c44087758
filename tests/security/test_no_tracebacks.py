"""The compiler answers every input with diagnostics, never a traceback (issue 13,
group 2): numbers too long to read, non-finite defaults, and a last line of defence
for its own bugs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mcigen import cli, compile_commands

from ..conftest import run_mcigen
from .support import package_command

LONG = "9" * 5000


@pytest.mark.parametrize(
    ("file_name", "text", "line"),
    [
        (
            "s.mci.json",
            '{"schemaVersion": "1.0", "tools": [{"name": "a", "execution": '
            '{"type": "text", "text": "x"},\n "inputSchema": {"type": "object", '
            f'"properties": {{"p": {{"type": "integer", "default": {LONG}}}}}}}}}]}}',
            2,
        ),
        (
            "s.mci.yaml",
            'schemaVersion: "1.0"\ntools:\n  - name: a\n'
            "    execution: {type: text, text: x}\n"
            f"    inputSchema: {{properties: {{p: {{type: integer, default: {LONG}}}}}}}\n",
            5,
        ),
    ],
)
def test_a_number_too_long_to_read_is_a_located_error(
    tmp_path: Path, file_name: str, text: str, line: int
) -> None:
    column = text.splitlines()[line - 1].index(LONG) + 1
    schema = tmp_path / file_name
    schema.write_text(text, encoding="utf-8")
    result = run_mcigen("build", schema, "-o", tmp_path / "pkg")
    assert result.returncode == 1
    assert result.stderr.splitlines() == [
        f"{schema}:{line}:{column}: error: a number has more than 4300 digits; "
        "write it as a string",
        "1 error, 0 warnings",
    ]


def test_non_finite_defaults_build_and_apply(tmp_path: Path) -> None:
    schema = tmp_path / "s.mci.yaml"
    schema.write_text(
        'schemaVersion: "1.0"\ntools:\n  - name: a\n'
        "    execution: {type: text, text: '{{props.p}} {{props.q}}'}\n"
        "    inputSchema: {properties: {p: {type: number, default: .nan},"
        " q: {type: number, default: -.inf}}}\n",
        encoding="utf-8",
    )
    result = run_mcigen("build", schema, "-o", tmp_path / "pkg")
    assert result.returncode == 0, result.stderr
    called = package_command(tmp_path, "call", "a")
    assert called.stdout == "nan -inf\n"


def test_a_bug_in_mcigen_is_one_clear_message_and_no_output(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("something the compiler did not expect")

    schema = tmp_path / "s.mci.json"
    schema.write_text(json.dumps({"schemaVersion": "1.0", "tools": []}))
    monkeypatch.setattr(compile_commands, "compile_schema", broken)
    monkeypatch.delenv(cli.DEBUG_VARIABLE, raising=False)
    assert cli.main(["build", str(schema), "-o", str(tmp_path / "pkg")]) == 3
    lines = capsys.readouterr().err.splitlines()
    assert lines[0] == (
        "mcigen: internal error: RuntimeError: something the compiler did not expect"
    )
    assert "MCIGEN_DEBUG=1" in lines[1]
    assert not (tmp_path / "pkg").exists()
    monkeypatch.setenv(cli.DEBUG_VARIABLE, "1")
    with pytest.raises(RuntimeError):
        cli.main(["build", str(schema), "-o", str(tmp_path / "pkg")])
