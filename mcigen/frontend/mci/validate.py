"""Check a parsed document against the MCI rules, collecting every diagnostic."""

from __future__ import annotations

from ...diagnostics import Diagnostics
from ..context import At, Context, type_name
from ..document_checks import check_text
from ..source import SourceDocument
from .placeholder_refs import check_placeholder_references
from .rules import MAIN_SCHEMA, TOOLSET_FILE


def validate(
    doc: SourceDocument, *, toolset_file: bool, whitespace: str = "compat"
) -> Context:
    """Validate ``doc`` as a main schema or as a toolset file."""
    servers = _declared_mcp_servers(doc.data, toolset_file)
    ctx = Context(doc, Diagnostics(), servers, whitespace=whitespace)
    check_text(ctx)
    root = At("", "schema")
    if not isinstance(doc.data, dict):
        ctx.error(root, f"the schema must be an object, got {type_name(doc.data)}")
    else:
        (TOOLSET_FILE if toolset_file else MAIN_SCHEMA).check(ctx, root, doc.data)
        check_placeholder_references(ctx)
    return ctx


def _declared_mcp_servers(data: object, toolset_file: bool) -> frozenset[str] | None:
    if toolset_file:
        return None
    servers = data.get("mcp_servers") if isinstance(data, dict) else None
    return frozenset(servers) if isinstance(servers, dict) else frozenset()
