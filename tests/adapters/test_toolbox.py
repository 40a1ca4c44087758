"""What every adapter shares: serve's filters choose the tools, under names the
frameworks accept, and a call goes through the package's validation."""

from __future__ import annotations

import subprocess
import sys
from types import ModuleType

import pytest
from mcigen_runtime.adapters.toolbox import FRAMEWORK_TOOL_NAME, toolbox
from mcigen_runtime.errors import ToolInputError

WEATHER = "weather.now/today"


def _names(package: ModuleType, **filters: object) -> list[str]:
    box = toolbox(package, **filters)  # type: ignore[arg-type]
    return [entry.name for entry in box.by_name.values()]


def test_serve_filters_choose_the_tools(agentpkg: ModuleType) -> None:
    assert _names(agentpkg) == ["greet", WEATHER, "fail", "note"]
    assert _names(agentpkg, only=["greet", "fail"]) == ["greet", "fail"]
    assert _names(agentpkg, exclude="greet") == [WEATHER, "fail", "note"]
    assert _names(agentpkg, tags=["weather"]) == [WEATHER]
    assert _names(agentpkg, without_tags=["weather"]) == ["greet", "fail", "note"]
    assert _names(agentpkg, tags=["social"], exclude=["fail"]) == ["greet"]
    assert _names(agentpkg, toolsets=["notes"]) == ["note"]


def test_a_name_no_tool_has_is_refused(agentpkg: ModuleType) -> None:
    with pytest.raises(ValueError, match=r"only: no tool is called 'gret'"):
        toolbox(agentpkg, only=["gret"])
    with pytest.raises(ValueError, match=r"toolsets: no tool comes from .* 'note'$"):
        toolbox(agentpkg, toolsets=["note"])


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


@pytest.mark.parametrize(
    ("adapter", "module", "extra"),
    [
        ("anthropic", "anthropic", "anthropic"),
        ("pydantic_ai", "pydantic_ai", "pydantic-ai"),
        ("langchain", "langchain_core", "langchain"),
        ("openai_agents", "agents", "openai-agents"),
    ],
)
def test_an_adapter_without_its_framework_says_what_to_install(
    adapter: str, module: str, extra: str
) -> None:
    probe = (
        "import sys\n"
        f"sys.modules[{module!r}] = None  # as if it were not installed\n"
        f"import mcigen_runtime.adapters.{adapter}\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=False
    )
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("mcigen_runtime.extras.MissingExtraError: ")
    assert f"pip install 'mcigen-runtime[{extra}]'" in last
