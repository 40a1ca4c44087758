"""A tool's input model is created only when its input is in doubt: a call whose
input the fast check accepts creates no model of the package and loads no
command-running machinery, while bad input is refused by the model as before,
naming the field. The models keep one identity and their JSON Schema wherever they
are imported from, and ``MCIClient`` answers as before."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from .conftest import built_package, package_env, schema_of, text_tool, write_schema

INPUT = {
    "type": "object",
    "properties": {
        "who": {"type": "string", "description": "Who to greet"},
        "times": {"type": "integer", "minimum": 1, "maximum": 3, "default": 1},
        "tone": {"type": "string", "enum": ["warm", "dry"]},
    },
    "required": ["who"],
}

SCHEMA = schema_of(
    text_tool("hello", "Hello {{props.who}} x{{props.times}}", inputSchema=INPUT),
    {"name": "echo", "execution": {"type": "cli", "command": "echo"}},
)

PROBE = """
import json, sys
import lazymodels
from pydantic import BaseModel

def ours(cls):
    found = [c for c in cls.__subclasses__() if c.__module__.startswith("lazymodels")]
    return found + [d for c in cls.__subclasses__() for d in ours(c)]

try:
    answer = lazymodels.hello(**json.loads(sys.argv[1])).text
except lazymodels.ToolInputError as error:
    answer = "refused: " + str(error)
print(json.dumps({
    "answer": answer,
    "models": sorted(c.__name__ for c in ours(BaseModel)),
    "cli_runner": "mcigen_runtime.executors.cli.run" in sys.modules,
}))
"""


@pytest.fixture(scope="module")
def directory(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("lazymodels")
    write_schema(directory, SCHEMA)
    return directory


@pytest.fixture(scope="module")
def package(directory: Path) -> Iterator[ModuleType]:
    with built_package(directory / "tools.mci.json", directory / "lazymodels") as pkg:
        yield pkg


def _called(directory: Path, arguments: dict[str, Any]) -> dict[str, Any]:
    """A fresh process's answer to ``hello(**arguments)``, the package's model
    classes it then holds, and whether it loaded what runs commands."""
    done = subprocess.run(
        [sys.executable, "-c", PROBE, json.dumps(arguments)],
        cwd=directory,
        env=package_env(directory),
        capture_output=True,
        text=True,
        check=True,
    )
    answer: dict[str, Any] = json.loads(done.stdout)
    return answer


def test_valid_input_creates_no_model(package: ModuleType, directory: Path) -> None:
    assert _called(directory, {"who": "Ann", "times": 2, "tone": "dry"}) == {
        "answer": "Hello Ann x2",
        "models": [],
        "cli_runner": False,
    }


@pytest.mark.parametrize(
    ("arguments", "field"),
    [
        ({"who": "Ann", "times": 4}, "times"),
        ({"who": "Ann", "times": 0}, "times"),
        ({"who": "Ann", "tone": "loud"}, "tone"),
        ({"who": 7}, "who"),
    ],
)
def test_input_in_doubt_is_refused_by_the_model_naming_the_field(
    package: ModuleType, directory: Path, arguments: dict[str, Any], field: str
) -> None:
    called = _called(directory, arguments)
    assert called["answer"].startswith("refused: ")
    assert field in called["answer"]
    assert called["models"] == ["HelloInput"]


def test_a_model_is_one_class_wherever_it_is_imported(package: ModuleType) -> None:
    name = package.__name__
    found = {
        importlib.import_module(f"{name}.{module}").HelloInput
        for module in ("models", "tools.main", "tools.models.main")
    }
    assert len(found) == 1


def test_a_lazy_model_keeps_its_json_schema(package: ModuleType) -> None:
    models = importlib.import_module(f"{package.__name__}.models")
    schema = models.HelloInput.model_json_schema()
    assert schema["properties"]["times"] == {
        "anyOf": [{"ge": 1, "le": 3, "type": "integer"}, {"type": "null"}],
        "default": 1,
        "title": "Times",
    }
    assert schema["properties"]["who"]["description"] == "Who to greet"
    assert schema["required"] == ["who"]


def test_the_mci_client_answers_as_before(
    directory: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from mcigen import MCIClient, MCIClientError

    monkeypatch.chdir(directory)
    client = MCIClient(schema_file_path="tools.mci.json")
    done = client.execute("hello", {"who": "Ann", "times": 2})
    assert done.model_dump() == {
        "result": {
            "content": [{"type": "text", "text": "Hello Ann x2"}],
            "isError": False,
            "metadata": None,
        },
        "jsonrpc": None,
        "id": None,
    }
    assert type(done).model_validate(done.model_dump()) == done
    assert [tool.name for tool in client.tools()] == ["hello", "echo"]
    assert client.tools()[0].inputSchema == INPUT
    with pytest.raises(MCIClientError, match="times"):
        client.execute("hello", {"who": "Ann", "times": 9})
