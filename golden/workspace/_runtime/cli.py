"""The command line every generated package offers through ``python -m``."""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
from pathlib import Path
from typing import Any

from .errors import ToolInputError
from .table import format_table


def load_manifest() -> dict[str, Any]:
    manifest = Path(__file__).resolve().parent.parent / "manifest.json"
    loaded: dict[str, Any] = json.loads(manifest.read_text(encoding="utf-8"))
    return loaded


def main(package: str, argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog=f"python -m {package}")
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("list", help="list the tools")
    call = commands.add_parser("call", help="call a tool and print its result")
    call.add_argument("tool", help="the tool's MCI name or Python name")
    call.add_argument("--json", default="{}", help="the tool's input as a JSON object")
    call.add_argument(
        "--raw", action="store_true", help="print the whole result as JSON"
    )
    args = parser.parse_args(argv)
    manifest = load_manifest()
    if args.command == "list":
        print(_table(manifest["tools"]))
        return 0
    return _call(package, manifest["tools"], args.tool, args.json, args.raw)


def _table(tools: list[dict[str, Any]]) -> str:
    rows = [("NAME", "PYTHON NAME", "TYPE", "GROUP", "TAGS", "DESCRIPTION")]
    for tool in tools:
        summary = (tool.get("description") or "").strip().splitlines()
        rows.append(
            (
                tool["name"],
                tool["python_name"],
                tool["type"],
                tool["group"],
                ",".join(tool.get("tags", [])),
                summary[0] if summary else "",
            )
        )
    return format_table(rows)


def _call(
    package: str, tools: list[dict[str, Any]], name: str, text: str, raw: bool
) -> int:
    tool = next((t for t in tools if name in (t["name"], t["python_name"])), None)
    if tool is None:
        print(f"error: unknown tool '{name}'", file=sys.stderr)
        return 2
    try:
        props = json.loads(text)
    except json.JSONDecodeError as error:
        print(f"error: --json is not valid JSON: {error}", file=sys.stderr)
        return 2
    if not isinstance(props, dict):
        print("error: --json must be a JSON object", file=sys.stderr)
        return 2
    module = importlib.import_module(f"{package}.tools.{tool['group']}")
    try:
        result = module.INVOKERS[tool["name"]](props, os.environ)
    except ToolInputError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    print(json.dumps(result.model_dump(), indent=2) if raw else result.text)
    return 1 if result.isError else 0
