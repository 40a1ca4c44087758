"""The input formats come through one registry, recognised in its order (that the
command line and the pipeline import no format's folder is an import-linter
contract, checked by ``make lint``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mcigen.frontend.formats import BROKER, MCI, MTDF, recognise


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
