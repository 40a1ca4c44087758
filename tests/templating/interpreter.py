"""A template AST rendered by walking it: the differential oracle of the template
compiler (``mcigen_runtime.templating.compiler``), which is what renders templates,
at build time and for file contents at call time. Simple enough to read against
MCI's rules, it is itself held to mci-py's output (``test_differential.py``,
``test_hypothesis_oracle.py``), and the compiler to it.
"""

from __future__ import annotations

from typing import Any

from mcigen_runtime.templating.lookup import (
    UNBOUND,
    Value,
    compare,
    first,
    foreach_items,
    operand,
    range_bound,
    restore,
    strip_pieces,
    truthy,
)
from mcigen_runtime.templating.syntax import (
    Condition,
    For,
    If,
    Node,
    NumberLiteral,
    PathRef,
    Placeholder,
    StringLiteral,
    Template,
    Text,
)


def render(template: Template, context: dict[str, Any]) -> str:
    """The text of ``template`` for ``context`` (``props``, ``env``, ``input``).

    Raises ``TemplateRuntimeError`` with mci-py's message when a value
    is missing or a comparison is impossible. ``context`` itself is not modified.
    """
    pieces: list[str] = []
    _render_nodes(template.nodes, dict(context), pieces)
    return "".join(pieces)


def _render_nodes(
    nodes: tuple[Node, ...], context: dict[str, Any], out: list[str]
) -> None:
    for node in nodes:
        if isinstance(node, Text):
            out.append(node.value)
        elif isinstance(node, Placeholder):
            out.append(Value(_placeholder_value(node, context)))
        elif isinstance(node, If):
            _render_if(node, context, out)
        elif isinstance(node, For):
            start, end = _bound(node.start, context), _bound(node.end, context)
            _loop(node.var, range(start, end), node.body, context, out)
        else:
            _loop(
                node.var,
                foreach_items(context, node.path.parts),
                node.body,
                context,
                out,
            )


def _placeholder_value(node: Placeholder, context: dict[str, Any]) -> str:
    alternatives = tuple(
        a.value if isinstance(a, StringLiteral) else a.parts for a in node.alternatives
    )
    return str(first(context, node.source, alternatives))


def _render_if(node: If, context: dict[str, Any], out: list[str]) -> None:
    for branch in node.branches:
        if branch.condition is None or _holds(branch.condition, context):
            if branch.strip:
                body: list[str] = []
                _render_nodes(branch.body, context, body)
                out.extend(strip_pieces(body))
            else:
                _render_nodes(branch.body, context, out)
            return


def _holds(condition: Condition, context: dict[str, Any]) -> bool:
    if condition.op is None or condition.right is None:
        assert isinstance(condition.left, PathRef)
        return truthy(context, condition.left.parts)
    return compare(
        _operand_value(condition.left, context),
        condition.op,
        _operand_value(condition.right, context),
    )


def _operand_value(
    value: PathRef | StringLiteral | NumberLiteral, context: dict[str, Any]
) -> Any:
    return operand(context, value.parts) if isinstance(value, PathRef) else value.value


def _bound(value: NumberLiteral | PathRef, context: dict[str, Any]) -> int:
    if isinstance(value, PathRef):
        return range_bound(context, value.parts)
    return int(value.value)


def _loop(
    var: str,
    items: Any,
    body: tuple[Node, ...],
    context: dict[str, Any],
    out: list[str],
) -> None:
    saved = context.get(var, UNBOUND)
    for item in items:
        context[var] = item
        _render_nodes(body, context, out)
    restore(context, var, saved)
