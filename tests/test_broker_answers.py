"""What a broker's ``meta_call`` answer carries (issue 16, point 7): an MCP tool's
images and sounds travel as MCP content blocks, not as base64 inside the answer's
JSON text, and nothing a tool returned is carried (and counted against
``--max-output-chars``) twice. A real MCP server written with the SDK
(tests/mcp_servers/media_server.py) and a real command."""

from __future__ import annotations

import base64
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from mcigen_runtime.broker.meta_tools import Broker
from mcigen_runtime.registry import registry

from .conftest import built_package, write_schema
from .mcp_servers import MEDIA_SERVER
from .test_mcp_server import run, stdio_session, text_of

SCHEMA = {
    "schemaVersion": "1.0",
    "tools": [
        {
            "name": "complain",
            "execution": {
                "type": "cli",
                "command": "sh",
                "args": ["-c", "echo out; echo 'the disk is full' >&2; exit 3"],
            },
        }
    ],
    "mcp_servers": {"media": {"command": sys.executable, "args": [str(MEDIA_SERVER)]}},
}


@pytest.fixture(scope="module")
def package(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    """The package ``pkg`` (the name ``stdio_session`` serves) over the media server."""
    directory = tmp_path_factory.mktemp("answers")
    schema = write_schema(directory, SCHEMA, "answers.mci.json")
    with built_package(schema, directory / "pkg") as built:
        yield built


@pytest.fixture(scope="module")
def broker(package: ModuleType) -> Broker:
    return Broker(registry(package.__name__))


def pkg_dir(package: ModuleType) -> Path:
    return Path(package.__path__[0]).parent


def report_json(lines: int) -> dict[str, Any]:
    return {
        "title": "report",
        "lines": [f"line {i}: all is well" for i in range(lines)],
    }


def test_structured_content_is_carried_once_as_the_text_that_holds_it(
    package: ModuleType, broker: Broker
) -> None:
    # The package's own function keeps it in metadata, for Python callers.
    result = package.report(lines=3)
    assert result.metadata["structuredContent"] == report_json(3)
    assert json.loads(result.text) == report_json(3)
    answer = broker.call("/mcp/media/report", {"lines": 3})
    assert [json.loads(item["text"]) for item in answer["content"]] == [report_json(3)]
    assert answer["metadata"] == {"mcp_server": "media", "mcp_tool": "report"}


def test_a_failed_commands_stderr_is_carried_once(broker: Broker) -> None:
    answer = broker.call("/complain")
    assert answer["content"] == [
        {"type": "text", "text": "Command exited with code 3: the disk is full\n"}
    ]
    assert answer["metadata"] == {
        "exit_code": 3,
        "stdout_bytes": 4,
        "stderr_bytes": 17,
        "stdout": "out\n",
    }


def test_the_output_budget_counts_the_text_once(package: ModuleType) -> None:
    """40 report lines are about 1100 characters as an answer: within a budget of
    1500, which they passed when the answer held them twice."""
    limited = Broker(registry(package.__name__), max_output_chars=1500)
    answer = limited.call("/mcp/media/report", {"lines": 40})
    assert "truncated" not in answer
    assert json.loads(answer["content"][0]["text"]) == report_json(40)


def test_python_callers_get_media_inline(broker: Broker) -> None:
    answer = broker.call("/mcp/media/snapshot")
    assert [item["type"] for item in answer["content"]] == ["text", "image", "audio"]
    assert base64.b64decode(answer["content"][1]["data"]).startswith(b"\x89PNG")


def test_meta_call_over_mcp_sends_images_and_audio_as_content_blocks(
    package: ModuleType,
) -> None:
    async def scenario() -> None:
        async with stdio_session(
            pkg_dir(package), "--broker", "--max-output-chars", "300"
        ) as session:
            call = await session.call_tool("meta_call", {"path": "/mcp/media/snapshot"})
            assert not call.is_error
            answer = json.loads(text_of(call))
            assert call.structured_content == answer
            assert answer["content"] == [
                {"type": "text", "text": "a pixel and a click"},
                {"type": "image", "mimeType": "image/png", "content_block": 1},
                {"type": "audio", "mimeType": "audio/wav", "content_block": 2},
            ]
            _, image, audio = call.content
            assert image.type == "image" and image.mime_type == "image/png"
            assert base64.b64decode(image.data).startswith(b"\x89PNG")
            assert audio.type == "audio" and audio.mime_type == "audio/wav"
            assert base64.b64decode(audio.data).startswith(b"RIFF")
            # The image's base64 is not in the answer's text, nor counted in it.
            assert image.data not in text_of(call)
            assert "truncated" not in answer

    run(scenario)
