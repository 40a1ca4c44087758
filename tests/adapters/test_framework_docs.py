"""The examples of the docs' page "Agent frameworks" run as written, each
against a local server replaying its provider's API: the model greets Ada through
the greetings package, and the text it answers is printed."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ..conftest import run_mcigen
from .replay import replaying
from .test_anthropic import final_text, tool_use

ROOT = Path(__file__).resolve().parents[2]
ARGUMENTS = {"name": "Ada", "language": "de"}
GREETING = "[de] Hello, Ada! Welcome to the team."
ANSWER = "Willkommen, Ada!"


def _examples() -> list[str]:
    page = (ROOT / "docs" / "frameworks.md").read_text("utf-8")
    return re.findall(r"```python\n(.*?)```", page, re.DOTALL)


EXAMPLES = _examples()


@pytest.fixture(scope="module")
def directory(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    directory = tmp_path_factory.mktemp("readme")
    built = run_mcigen(
        "build", ROOT / "examples" / "greetings.mci.yaml", "-o", directory / "greetings"
    )
    assert built.returncode == 0, built.stderr
    yield directory


def _responses_reply(output: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "id": "resp_1",
        "object": "response",
        "created_at": 0,
        "model": "gpt-4.1",
        "status": "completed",
        "output": output,
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
        "usage": {
            "input_tokens": 1,
            "output_tokens": 1,
            "total_tokens": 2,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens_details": {"reasoning_tokens": 0},
        },
    }


OPENAI_REPLIES = (
    _responses_reply(
        [
            {
                "type": "function_call",
                "id": "fc_1",
                "call_id": "call_1",
                "name": "greet",
                "arguments": json.dumps(ARGUMENTS),
                "status": "completed",
            }
        ]
    ),
    _responses_reply(
        [
            {
                "type": "message",
                "id": "msg_1",
                "role": "assistant",
                "status": "completed",
                "content": [{"type": "output_text", "text": ANSWER, "annotations": []}],
            }
        ]
    ),
)
ANTHROPIC_REPLIES = (tool_use("greet", ARGUMENTS), final_text(ANSWER))


@pytest.mark.parametrize(
    ("index", "replies"),
    [
        pytest.param(0, ANTHROPIC_REPLIES, id="anthropic-loop"),
        pytest.param(1, ANTHROPIC_REPLIES, id="anthropic-tool-runner"),
        pytest.param(2, ANTHROPIC_REPLIES, id="pydantic-ai"),
        pytest.param(3, ANTHROPIC_REPLIES, id="langchain"),
        pytest.param(4, OPENAI_REPLIES, id="openai-agents"),
    ],
)
def test_the_example_runs_the_tool_and_prints_the_answer(
    directory: Path, index: int, replies: tuple[dict[str, Any], ...]
) -> None:
    assert len(EXAMPLES) == 5
    with replaying(*replies) as server:
        env = {
            **{k: v for k, v in os.environ.items() if k != "TEAM_NAME"},
            "ANTHROPIC_BASE_URL": server.base,
            "ANTHROPIC_API_KEY": "test",
            "OPENAI_BASE_URL": server.base,
            "OPENAI_API_KEY": "test",
            "OPENAI_AGENTS_DISABLE_TRACING": "1",
        }
        done = subprocess.run(
            [sys.executable, "-c", EXAMPLES[index]],
            cwd=directory,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
    assert done.returncode == 0, done.stderr
    assert done.stdout == ANSWER + "\n"
    assert len(server.requests) == 2
    assert GREETING in json.dumps(server.requests[1])
