"""What ``mcigen list`` prints: a table, or (``--format json|yaml``) the document
mcix's ``list --format json|yaml --verbose`` writes, so that what reads mcix's
file reads mcigen's output. mcigen prints it on stdout (redirect it to keep it)
where mcix writes a file named after the time, and adds each tool's Python name.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import yaml
from mcigen_runtime.app.table import format_table

from . import ir
from .ir import execution_kind

FORMATS = ("table", "json", "yaml")


def listing(schema: Path, package: ir.Package, form: str) -> str:
    """The tools of ``package`` (built from ``schema``) in the format ``form``."""
    if form == "table":
        return _table(package)
    document = {
        "timestamp": datetime.now(UTC).isoformat(),
        "mci_file": str(schema),
        "filters_applied": [],
        "total": len(package.tools),
        "tools": [_tool(planned) for planned in package.tools],
    }
    if form == "json":
        return json.dumps(document, indent=2, ensure_ascii=False)
    return yaml.safe_dump(
        document, sort_keys=False, allow_unicode=True, default_flow_style=False
    ).rstrip("\n")


def _tool(planned: ir.PlannedTool) -> dict[str, Any]:
    tool = planned.tool
    fields: dict[str, Any] = {
        "name": tool.name,
        "source": tool.toolset or "main",
        "description": tool.description or "",
        "tags": list(tool.tags),
        "execution_type": execution_kind(tool.execution),
    }
    if tool.input_schema:
        fields["inputSchema"] = tool.input_schema
    fields["python_name"] = planned.python_name
    return fields


def _table(package: ir.Package) -> str:
    rows = [
        (
            planned.tool.name,
            planned.python_name,
            execution_kind(planned.tool.execution),
            planned.tool.toolset or "-",
            ",".join(planned.tool.tags),
        )
        for planned in package.tools
    ]
    return format_table([("NAME", "PYTHON NAME", "TYPE", "TOOLSET", "TAGS"), *rows])
