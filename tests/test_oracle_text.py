"""Differential: text tools give mci-py's results byte for byte (mci-py in its own venv)."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from typing import Any

import pytest

from .conftest import ROOT, run_mcigen, schema_of, text_tool, write_schema
from .oracle import run_oracle

TWO_STRINGS = {
    "type": "object",
    "properties": {"a": {"type": "string"}, "b": {"type": "string"}},
    "required": ["a"],
}

PLACEHOLDERS = schema_of(
    text_tool(
        "typed",
        "s={{props.s}} i={{props.i}} f={{props.f}} b={{props.b}} n={{props.n}} "
        "l={{props.l}} o={{props.o}} deep={{props.o.k}}",
        inputSchema={
            "type": "object",
            "properties": {
                "s": {"type": "string"},
                "i": {"type": "integer"},
                "f": {"type": "number"},
                "b": {"type": "boolean"},
                "n": {"type": ["string", "null"]},
                "l": {"type": "array"},
                "o": {"type": "object"},
            },
        },
    ),
    text_tool(
        "fallbacks",
        "{{ props.a | env.A | 'lit a' }}|{{props.b|`tick`}}|{{input.a | env.B}}|{{env.A}}",
        inputSchema={
            "type": "object",
            "properties": {"a": {"type": "string"}, "b": {"type": "string"}},
        },
    ),
    text_tool(
        "defaults",
        "{{props.x}} {{props.y}} {{props}}",
        inputSchema={
            "type": "object",
            "properties": {
                "x": {"type": "integer", "default": 7},
                "y": {"type": "string"},
            },
            "required": ["y"],
        },
    ),
    text_tool("anything", "{{props.k}} {{props.k.deeper}} {{props}}"),
    # reads declared keys only, then an undeclared one too: extra input is never seen
    text_tool(
        "declared_reads",
        "{{props.a}} {{props.b | 'no b'}}",
        inputSchema=TWO_STRINGS,
    ),
    text_tool(
        "undeclared_read",
        "{{props.a}} {{props.b | 'no b'}} {{props.z | 'no z'}}",
        inputSchema=TWO_STRINGS,
    ),
    text_tool(
        "braces", "{{}} {{ a}b }} {x} }} {{props.k}}} {{props.k}}}}", inputSchema={}
    ),
    text_tool(
        "formats",
        "{{props.when}} {{props}}",
        inputSchema={
            "type": "object",
            "properties": {
                "when": {"type": "string", "format": "date-time"},
                "day": {"type": "string", "format": "date"},
                "mail": {"type": "string", "format": "email"},
                "id": {"type": "string", "format": "uuid"},
                "days": {
                    "type": "array",
                    "items": {"type": "string", "format": "date"},
                },
            },
            "required": ["when"],
        },
    ),
)

CASES: dict[str, list[tuple[str, dict[str, Any], dict[str, str]]]] = {
    "placeholders": [
        (
            "typed",
            {
                "s": "x",
                "i": 3,
                "f": 0.5,
                "b": True,
                "n": None,
                "l": ["a", 1],
                "o": {"k": [1]},
            },
            {},
        ),
        (
            "typed",
            {
                "s": "é ü \n",
                "i": -1,
                "f": 3,
                "b": False,
                "n": "v",
                "l": [],
                "o": {"k": {}},
            },
            {},
        ),
        ("typed", {"s": "x", "o": {"other": 1}}, {}),
        ("fallbacks", {}, {}),
        ("fallbacks", {}, {"A": "env a", "B": "env b"}),
        ("fallbacks", {"a": "prop a", "b": "prop b"}, {"A": "env a"}),
        ("defaults", {"y": "why"}, {}),
        ("defaults", {"y": "why", "x": 1, "extra": "dropped"}, {}),
        ("defaults", {"x": 1}, {}),
        ("anything", {"k": {"deeper": 2}, "z": 1}, {}),
        ("anything", {"k": 1}, {}),
        ("declared_reads", {"a": "x", "z": "extra"}, {}),
        ("declared_reads", {"a": "x", "b": "y", "z": "extra"}, {}),
        ("undeclared_read", {"a": "x", "z": "extra"}, {}),
        ("braces", {"k": "v"}, {}),
        (
            "formats",
            {
                "when": "not a date",
                "day": "2024-02-30",
                "mail": "nobody",
                "id": "ABC",
                "days": ["yesterday"],
            },
            {},
        ),
        ("formats", {"when": "2024-01-31T12:00:00Z", "day": "2024-01-31"}, {}),
    ],
    "text_example": [
        ("generate_message", {"username": "Ann"}, {"CURRENT_DATE": "2026-11-21"}),
        ("generate_message", {"username": "Ann"}, {}),
        ("generate_welcome", {"username": "Bo", "email": "bo@example.org"}, {}),
        ("generate_welcome", {"username": "Bo"}, {}),
        ("status_message", {"status": "green"}, {"TIMESTAMP": "noon"}),
        (
            "generate_report_summary",
            {"report_name": "Q3", "author": "Cy"},
            {"CURRENT_DATE": "d", "APP_VERSION": "9"},
        ),
    ],
    "greetings": [
        ("greet", {"name": "World"}, {}),
        ("greet", {"name": "Welt", "language": "de"}, {"TEAM_NAME": "Team"}),
        ("farewell", {"name": "Ann"}, {"BOT_NAME": "Botty"}),
        ("farewell", {"name": "Ann", "sender": "Bo"}, {}),
        ("farewell", {"name": "Ann"}, {}),
    ],
    "support_replies": [
        ("acknowledgeTicket", {"ticket_id": 42, "customer": "Dee"}, {}),
        (
            "acknowledgeTicket",
            {
                "ticket_id": 7,
                "customer": "Eve",
                "priority": "urgent",
                "response_hours": 1.5,
            },
            {"SUPPORT_TEAM": "Helpdesk"},
        ),
        (
            "escalationNote",
            {"ticket_id": 1, "reason": "outage", "labels": ["p1", "db"]},
            {"ONCALL_TEAM": "SRE"},
        ),
        ("escalationNote", {"ticket_id": 1, "reason": "outage"}, {}),
        (
            "refund-notice",
            {"customer": "Flo", "amount": 9.99, "order": {"id": "A-1"}},
            {},
        ),
        (
            "refund-notice",
            {
                "customer": "Flo",
                "amount": 10,
                "currency": "USD",
                "order": {"id": "A-2", "placed": "May"},
            },
            {},
        ),
    ],
    "release_notes": [
        ("commit_message", {"type": "fix", "subject": "stop leaking sockets"}, {}),
        (
            "commit_message",
            {
                "type": "feat",
                "scope": "cli",
                "subject": "add --check",
                "breaking": True,
            },
            {},
        ),
        (
            "changelogEntry",
            {"version": "1.2.0", "summary": "Faster builds", "pull-request": 12},
            {},
        ),
        (
            "changelogEntry",
            {"version": "1.2.0", "summary": "x", "pull-request": 3, "class": "Fixed"},
            {"REPO_URL": "https://git.example/r"},
        ),
        ("announce", {"version": "2.0"}, {"PRODUCT_NAME": "Widget"}),
        ("announce", {"product": "Gadget"}, {}),
    ],
}

# incidentDigest uses a loop variable in a condition, which mci-py cannot do
# (COMPATIBILITY.md); tests/test_compatibility.py shows both outputs.
CASES["incident_digest"] = [
    ("healthBoard", {"services": {"api": "ok", "db": "degraded"}}, {}),
    ("healthBoard", {"services": {}, "threshold_ms": 99.5}, {}),
    ("retryPlan", {"job": "sync", "attempts": 4}, {}),
    ("retryPlan", {"job": "sync", "attempts": 2, "mode": "manual"}, {}),
]

SCHEMAS = {
    "text_example": ROOT
    / "tests"
    / "fixtures"
    / "reference"
    / "examples"
    / "text_example.json",
    "greetings": ROOT / "examples" / "greetings.mci.yaml",
    "support_replies": ROOT / "examples" / "support_replies.mci.json",
    "release_notes": ROOT / "examples" / "release_notes.mci.json",
    "incident_digest": ROOT / "examples" / "incident_digest.mci.yaml",
}


def _ours(
    package_dir: Path, calls: list[tuple[str, dict[str, Any], dict[str, str]]]
) -> list[dict[str, Any]]:
    sys.path.insert(0, str(package_dir.parent))
    try:
        module = importlib.import_module(f"{package_dir.name}.tools.main")
        answers = []
        for tool, props, env in calls:
            try:
                answers.append(
                    {
                        "result": module.INVOKERS[tool](props, env).model_dump(
                            mode="json"
                        )
                    }
                )
            except ValueError as error:
                answers.append({"exception": f"{type(error).__name__}: {error}"})
        return answers
    finally:
        sys.path.remove(str(package_dir.parent))


@pytest.mark.parametrize("name", sorted(CASES))
def test_text_tools_match_mci_py(name: str, tmp_path: Path) -> None:
    schema = SCHEMAS.get(name) or write_schema(tmp_path, PLACEHOLDERS)
    package_dir = tmp_path / f"oracle_{name}"
    built = run_mcigen("build", schema, "-o", package_dir)
    assert built.returncode == 0, built.stderr
    calls = CASES[name]
    theirs = run_oracle(
        schema, [{"tool": t, "props": p, "env": e} for t, p, e in calls]
    )
    ours = _ours(package_dir, calls)
    for call, mine, oracle in zip(calls, ours, theirs, strict=True):
        if "exception" in oracle:
            # mci-py raises for a missing required property; we raise ToolInputError.
            assert mine["exception"].startswith("ToolInputError: "), (call, mine)
        else:
            assert mine == oracle, call
