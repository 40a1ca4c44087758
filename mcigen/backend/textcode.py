"""Compile template ASTs into Python source: no template is parsed at call time.

A placeholder whose value is known to be present (a declared property that is
required or has a default) becomes a plain ``props["x"]``; any other becomes a call
of the runtime's ``first`` with the alternatives as constant tuples. The text is then
one f-string over those values.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from ..runtime.template_ast import PathRef, Placeholder, StringLiteral, Template, Text

_PROPS_ROOTS = ("props", "input")


@dataclass
class CompiledText:
    """Statements binding each placeholder's value, and the expression of the text."""

    statements: list[str] = field(default_factory=list)
    expression: str = '""'
    needs_context: bool = False


def compile_text(
    template: Template, present: frozenset[str], prefix: str = "value"
) -> CompiledText:
    compiled = CompiledText()
    pieces: list[str] = []
    for node in template.nodes:
        if isinstance(node, Text):
            pieces.append(_escape_fstring(node.value))
            continue
        variable = f"{prefix}_{len(compiled.statements)}"
        expression = _direct_access(node, present)
        if expression is None:
            compiled.needs_context = True
            expression = _lookup_call(node)
        compiled.statements.append(f"{variable} = {expression}")
        pieces.append("{" + variable + "}")
    if not compiled.statements:
        compiled.expression = json.dumps(
            "".join(n.value for n in template.nodes if isinstance(n, Text)),
            ensure_ascii=False,
        )
    else:
        compiled.expression = 'f"' + "".join(pieces) + '"'
    return compiled


def _direct_access(node: Placeholder, present: frozenset[str]) -> str | None:
    alternative = node.alternatives[0]
    if isinstance(alternative, StringLiteral):
        return json.dumps(alternative.value, ensure_ascii=False)
    parts = alternative.parts
    if len(parts) == 2 and parts[0] in _PROPS_ROOTS and parts[1] in present:
        return f"props[{json.dumps(parts[1], ensure_ascii=False)}]"
    return None


def _lookup_call(node: Placeholder) -> str:
    alternatives = ", ".join(_alternative_constant(a) for a in node.alternatives)
    source = json.dumps(node.source, ensure_ascii=False)
    return f"_first(context, {source}, ({alternatives}{',' if len(node.alternatives) == 1 else ''}))"


def _alternative_constant(alternative: PathRef | StringLiteral) -> str:
    if isinstance(alternative, StringLiteral):
        return json.dumps(alternative.value, ensure_ascii=False)
    parts = [json.dumps(p, ensure_ascii=False) for p in alternative.parts]
    return f"({parts[0]},)" if len(parts) == 1 else "(" + ", ".join(parts) + ")"


def _escape_fstring(text: str) -> str:
    return (
        json.dumps(text, ensure_ascii=False)[1:-1].replace("{", "{{").replace("}", "}}")
    )
