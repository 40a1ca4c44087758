"""What every adapter shares: serve's filters choose the tools, under names the
frameworks accept, and a call goes through the package's validation."""

from __future__ import annotations

from types import ModuleType

import pytest
from mcigen_runtime.adapters.toolbox import FRAMEWORK_TOOL_NAME, toolbox
from mcigen_runtime.errors import ToolInputError

WEATHER = "weather.now/today"


def _names(package: ModuleType, **filters: object) -> list[str]:
    box = toolbox(package, **filters)  # type: ignore[arg-type]
    return [entry.name for entry in box.by_name.values()]


def test_serve_filters_choose_the_tools(agentpkg: ModuleType) -> None:
    assert _names(agentpkg) == ["greet", WEATHER, "fail"]
    assert _names(agentpkg, only=["greet", "fail"]) == ["greet", "fail"]
    assert _names(agentpkg, exclude="greet") == [WEATHER, "fail"]
    assert _names(agentpkg, tags=["weather"]) == [WEATHER]
    assert _names(agentpkg, without_tags=["weather"]) == ["greet", "fail"]
    assert _names(agentpkg, tags=["social"], exclude=["fail"]) == ["greet"]
    assert _names(agentpkg, toolsets=["a_toolset"]) == []


def test_a_name_no_tool_has_is_refused(agentpkg: ModuleType) -> None:
    with pytest.raises(ValueError, match=r"no tool named 'gret' \(only\)"):
        toolbox(agentpkg, only=["gret"])


def test_names_fit_the_frameworks_and_keep_under_filters(agentpkg: ModuleType) -> None:
    everything = toolbox("agentpkg").by_name
    assert all(FRAMEWORK_TOOL_NAME.fullmatch(name) for name in everything)
    (weather,) = toolbox("agentpkg", tags=["weather"]).by_name
    assert everything[weather].name == WEATHER


def test_a_call_validates_the_models_arguments(agentpkg: ModuleType) -> None:
    box = toolbox(agentpkg)
    assert box.call("greet", {"name": "Ann"}).text == "Hello Ann"
    with pytest.raises(ToolInputError) as raised:
        box.call("greet", {"name": 3})
    assert raised.value.field == "name"
    with pytest.raises(ToolInputError, match="expected an object, not list"):
        box.call("greet", ["Ann"])
