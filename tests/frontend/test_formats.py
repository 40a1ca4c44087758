"""The input formats come through one registry: recognised in its order, and
chosen nowhere else."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

import mcigen.cli
import mcigen.pipeline
from mcigen.frontend.formats import BROKER, FORMATS, MCI, MTDF, recognise

FORMAT_FOLDERS = tuple(f"mcigen.frontend.{known.name}" for known in FORMATS)


@pytest.mark.parametrize(
    ("document", "expected"),
    [
        ({"name": "t", "description": "d", "command": "ls"}, MTDF),
        ({"tree": []}, BROKER),
        ({"schemaVersion": "1.0", "command": "ls", "tree": []}, MCI),
        ([], MCI),
    ],
)
def test_the_first_format_that_recognises_a_file_reads_it(
    tmp_path: Path, document: object, expected: object
) -> None:
    path = tmp_path / "input.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    assert recognise(path) is expected


@pytest.mark.parametrize("module", [mcigen.cli, mcigen.pipeline])
def test_the_cli_and_the_pipeline_import_no_formats_folder(module: object) -> None:
    source = Path(getattr(module, "__file__", "")).read_text(encoding="utf-8")
    imported = [
        f"mcigen.{node.module}"
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.ImportFrom) and node.level == 1 and node.module
    ]
    assert imported and not [
        name for name in imported if name.startswith(FORMAT_FOLDERS)
    ]
