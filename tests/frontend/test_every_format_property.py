"""Property: a value of any type put anywhere in an MTDF tool file or a broker
config is diagnosed, never raised, by the frontend and planner that `check` runs
(the MCI schema's twin is test_robustness_property)."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from mcigen.frontend.formats import BROKER, MTDF, Format
from mcigen.pipeline import CompileOptions, plan_schema
from mcigen.planner import McpAccess, McpMode

from ..conftest import ROOT
from .test_robustness_property import JSON_VALUES, _paths, _replace

MTDF_FILE = json.loads((ROOT / "examples" / "ahma" / "repo.json").read_text("utf-8"))
BROKER_CONFIG = json.loads(
    (ROOT / "examples" / "broker" / "broker.json").read_text("utf-8")
)

_SOURCE = ("tree", "children", 0, "children", 0, "source")


def _plan(document: Any, name: str, source_format: Format) -> None:
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / name
        path.write_text(json.dumps(document, indent=1), encoding="utf-8")
        options = CompileOptions(
            source_format=source_format, mcp=McpAccess(McpMode.OFFLINE)
        )
        package, diagnostics = plan_schema(path, options)
        assert (package is None) == diagnostics.has_errors


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(path=st.sampled_from(_paths(MTDF_FILE)), new=JSON_VALUES)
def test_any_value_anywhere_in_an_mtdf_file_is_diagnosed(
    path: tuple[Any, ...], new: Any
) -> None:
    _plan(_replace(MTDF_FILE, path, new), "repo.json", MTDF)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(path=st.sampled_from(_paths(BROKER_CONFIG)), new=JSON_VALUES)
# an override that is no object, a filter that is no array: each once raised
@example(path=(*_SOURCE, "tool_overrides", "read_text_file"), new=5)
@example(path=(*_SOURCE, "tool_filter"), new=1)
def test_any_value_anywhere_in_a_broker_config_is_diagnosed(
    path: tuple[Any, ...], new: Any
) -> None:
    _plan(_replace(BROKER_CONFIG, path, new), "broker.json", BROKER)
