"""A pytest plugin for mci-py's own test suite, run against ``mcigen.MCIClient``.

A test module that never names ``MCIClient`` tests mci-py's internal classes
(its parser, executors, template engine) and is not collected; a test of a
module that does, but which uses an internal class, is skipped naming it.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from types import CodeType

import pytest

INTERNAL_CLASSES = ("SchemaParser", "SchemaParserError", "MCISchema", "Toolset")


def pytest_ignore_collect(collection_path: Path) -> bool | None:
    if collection_path.suffix != ".py" or not collection_path.name.startswith("test_"):
        return None
    return "MCIClient" not in collection_path.read_text(encoding="utf-8")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        function = getattr(item, "function", None)
        if function is None:
            continue
        used = sorted(set(INTERNAL_CLASSES).intersection(_names(function.__code__)))
        if used:
            item.add_marker(
                pytest.mark.skip(
                    reason=f"uses mci-py's internal class {used[0]}, "
                    "which mcigen does not have"
                )
            )


def _names(code: CodeType) -> Iterator[str]:
    """The names a function's code (and the code nested in it) refers to."""
    yield from code.co_names
    for constant in code.co_consts:
        if isinstance(constant, CodeType):
            yield from _names(constant)
