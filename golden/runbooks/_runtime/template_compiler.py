"""Compile template ASTs into Python source: no template is parsed at call time.

The backend writes the source into generated modules for the templates of a
schema; :func:`compile_renderer` turns the template of a file, read at call time,
into a function once per file version.

A template of text and placeholders becomes one f-string over the placeholder
values; one with directives becomes straight-line Python (``for``, ``if``) appending
to a list. A placeholder whose value is known to be present (a declared property
that is required or has a default) reads ``props["x"]`` directly; any other calls the
runtime's ``first`` with its alternatives as constant tuples. Loop variables are
bound in ``context`` so that every lookup sees them, innermost first.

The generated code follows ``mcigen.runtime.template_render`` exactly; a test holds
the two to the same output.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from . import lookup
from .template_ast import (
    Branch,
    Condition,
    For,
    Foreach,
    If,
    Node,
    NumberLiteral,
    Operand,
    PathRef,
    Placeholder,
    StringLiteral,
    Template,
    Text,
)
from .template_parser import parse_native, parse_template

_PROPS_ROOTS = ("props", "input")
_LOCALS = {"props": "props", "input": "props", "env": "env"}
"""Context roots that the generated function also holds in a local variable."""
EVERY_ROOT = frozenset(_LOCALS)


@dataclass
class CompiledText:
    """Statements computing the text, the expression of the text, and the runtime
    helpers the statements call (by their names in ``mcigen.runtime.lookup``)."""

    statements: list[str] = field(default_factory=list)
    expression: str = '""'
    needs_context: bool = False
    reads_props: bool = False
    helpers: set[str] = field(default_factory=set)


def compile_structure(
    value: object, present: frozenset[str], prefix: str
) -> CompiledText:
    """Compile a JSON value (params, headers, a body) whose strings take placeholders."""
    compiler = _Compiler(present, prefix, EVERY_ROOT)
    compiler.result.expression = compiler.structure(value)
    return compiler.result


def compile_text(
    template: Template,
    present: frozenset[str],
    prefix: str = "value",
    roots: frozenset[str] = EVERY_ROOT,
) -> CompiledText:
    """``prefix`` names the variables holding placeholder values, so that several
    templates can be compiled into one function; ``roots`` are the context roots the
    function holds as locals (``props`` and ``env``; an MCP server's settings see
    only ``env``)."""
    return _Compiler(present, prefix, roots).compile(template)


Renderer = Callable[[dict[str, Any]], str]


def compile_renderer(template: Template, name: str = "<template>") -> Renderer:
    """A function ``context -> text`` that renders ``template`` as the runtime
    renderer would, compiled to Python; ``name`` is shown in tracebacks."""
    code = compile_text(template, frozenset())
    lines = [
        "def render(context):",
        '    props = context.get("props", {})',
        '    env = context.get("env", {})',
    ]
    for statement in code.statements:
        lines.extend("    " + line for line in statement.split("\n"))
    lines.append(f"    return {code.expression}")
    namespace = {f"_{helper}": getattr(lookup, helper) for helper in code.helpers}
    exec(compile("\n".join(lines), name, "exec"), namespace)  # noqa: S102
    renderer: Renderer = namespace["render"]
    return renderer


def _literal(value: object) -> str:
    return (
        json.dumps(value, ensure_ascii=False) if isinstance(value, str) else repr(value)
    )


def _parts(path: PathRef) -> str:
    items = [_literal(p) for p in path.parts]
    return f"({items[0]},)" if len(items) == 1 else "(" + ", ".join(items) + ")"


class _Compiler:
    def __init__(
        self, present: frozenset[str], prefix: str, roots: frozenset[str]
    ) -> None:
        self.present = present
        self.prefix = prefix
        self.roots = roots
        self.result = CompiledText()
        self.counter = 0
        self.scope: dict[str, str] = {}
        """Loop variables in scope: name -> the local variable holding its value."""

    def compile(self, template: Template) -> CompiledText:
        if not template.has_directives:
            self.result.expression = self._fstring(template.nodes)
        else:
            lines: list[str] = ["out: list[str] = []"]
            self._nodes(template.nodes, "out", lines, 0, wrap=False)
            self.result.statements = lines
            self.result.expression = '"".join(out)'
        return self.result

    def _name(self, stem: str) -> str:
        self.counter += 1
        return f"{stem}_{self.counter}"

    def _use(self, helper: str) -> str:
        self.result.helpers.add(helper)
        self.result.needs_context = True
        return f"_{helper}"

    # -- text and placeholders -------------------------------------------------

    def _fstring(self, nodes: tuple[Node, ...]) -> str:
        """An f-string over the placeholders (bound to variables first), or a literal."""
        pieces: list[str] = []
        for node in nodes:
            if isinstance(node, Text):
                pieces.append(_escape_fstring(node.value))
            else:
                assert isinstance(node, Placeholder)
                variable = self._name(self.prefix)
                self.result.statements.append(f"{variable} = {self._value(node)}")
                pieces.append("{" + variable + "}")
        if any(isinstance(n, Placeholder) for n in nodes):
            return 'f"' + "".join(pieces) + '"'
        return _literal("".join(n.value for n in nodes if isinstance(n, Text)))

    def structure(self, value: object) -> str:
        """An expression building a JSON value whose strings are templates; a string
        that is exactly ``{!! path !!}`` becomes the native value at the path."""
        if isinstance(value, dict):
            items = ", ".join(
                f"{_literal(k)}: {self.structure(v)}" for k, v in value.items()
            )
            return "{" + items + "}"
        if isinstance(value, list):
            return "[" + ", ".join(self.structure(v) for v in value) + "]"
        if not isinstance(value, str):
            return repr(value)
        native = parse_native(value)
        if native is not None:
            alternatives = ", ".join(
                _literal(a.value) if isinstance(a, StringLiteral) else _parts(a)
                for a in native.alternatives
            )
            trailing = "," if len(native.alternatives) == 1 else ""
            return f"{self._use('native')}(context, {_literal(value)}, ({alternatives}{trailing}))"
        return self._fstring(parse_template(value).nodes)

    def _value(self, node: Placeholder) -> str:
        """An expression for the placeholder's value (not yet a string)."""
        alternative = node.alternatives[0]
        if isinstance(alternative, StringLiteral):
            return _literal(alternative.value)
        parts = alternative.parts
        if (
            len(parts) == 2
            and parts[0] in _PROPS_ROOTS
            and parts[0] not in self.scope
            and parts[1] in self.present
        ):
            self.result.reads_props = True
            return f"props[{_literal(parts[1])}]"
        return self._lookups(node)

    def _lookups(self, node: Placeholder) -> str:
        """The fallback chain as conditional expressions over ``props`` and ``env``
        where every path is a key of one of them (``{{env.TEAM | 'us'}}``): no call,
        no context. The runtime's ``first`` ends a chain without a literal, for its
        error message, and takes any chain with other paths."""
        tests: list[tuple[str, str]] = []
        for alternative in node.alternatives:
            if isinstance(alternative, StringLiteral):
                return self._chain(tests, _literal(alternative.value))
            test = self._lookup(alternative.parts)
            if test is None:
                return self._first(node)
            tests.append(test)
        return self._chain(tests, self._first(node))

    def _lookup(self, parts: tuple[str, ...]) -> tuple[str, str] | None:
        """(value, test) of a two-part path read straight from a local: ``props`` or
        ``env``, or a loop variable through the runtime's ``member``."""
        if len(parts) != 2:
            return None
        root, key = parts[0], _literal(parts[1])
        if root in self.scope:
            found = self._name("found")
            member = self._use("member")
            nothing = self._use("NOTHING")
            test = f"({found} := {member}({self.scope[root]}, {key})) is not {nothing}"
            return found, test
        if root not in self.roots:
            return None
        local = _LOCALS[root]
        self.result.reads_props |= local == "props"
        return f"{local}[{key}]", f"{key} in {local}"

    @staticmethod
    def _chain(tests: list[tuple[str, str]], otherwise: str) -> str:
        expression = otherwise
        for value, test in reversed(tests):
            expression = f"{value} if {test} else {expression}"
        return expression

    def _first(self, node: Placeholder) -> str:
        alternatives = ", ".join(
            _literal(a.value) if isinstance(a, StringLiteral) else _parts(a)
            for a in node.alternatives
        )
        trailing = "," if len(node.alternatives) == 1 else ""
        first = self._use("first")
        return f"{first}(context, {_literal(node.source)}, ({alternatives}{trailing}))"

    # -- blocks ----------------------------------------------------------------

    def _nodes(
        self,
        nodes: tuple[Node, ...],
        target: str,
        lines: list[str],
        depth: int,
        wrap: bool,
    ) -> None:
        pad = "    " * depth
        for node in nodes:
            if isinstance(node, Text):
                lines.append(f"{pad}{target}.append({_literal(node.value)})")
            elif isinstance(node, Placeholder):
                value = f"str({self._value(node)})"
                if wrap:
                    value = f"{self._use('Value')}({value})"
                lines.append(f"{pad}{target}.append({value})")
            elif isinstance(node, If):
                self._if(node, target, lines, depth, wrap)
            else:
                self._loop(node, target, lines, depth, wrap)

    def _if(
        self, node: If, target: str, lines: list[str], depth: int, wrap: bool
    ) -> None:
        pad = "    " * depth
        for index, branch in enumerate(node.branches):
            if branch.condition is None:
                lines.append(f"{pad}else:")
            else:
                keyword = "if" if index == 0 else "elif"
                lines.append(f"{pad}{keyword} {self._condition(branch.condition)}:")
            before = len(lines)
            self._branch(branch, target, lines, depth + 1, wrap)
            if len(lines) == before:
                lines.append(f"{pad}    pass")

    def _branch(
        self, branch: Branch, target: str, lines: list[str], depth: int, wrap: bool
    ) -> None:
        if not branch.strip:
            self._nodes(branch.body, target, lines, depth, wrap)
            return
        body = _strip_static(branch.body)
        if body is not None:
            self._nodes(body, target, lines, depth, wrap)
            return
        pieces = self._name("pieces")
        lines.append(f"{'    ' * depth}{pieces}: list[str] = []")
        self._nodes(branch.body, pieces, lines, depth, wrap=True)
        strip = self._use("strip_pieces")
        lines.append(f"{'    ' * depth}{target}.extend({strip}({pieces}))")

    def _condition(self, condition: Condition) -> str:
        if condition.op is None or condition.right is None:
            assert isinstance(condition.left, PathRef)
            return f"{self._use('truthy')}(context, {_parts(condition.left)})"
        left, right = self._operand(condition.left), self._operand(condition.right)
        return f"{self._use('compare')}({left}, {_literal(condition.op)}, {right})"

    def _operand(self, operand: Operand) -> str:
        if isinstance(operand, PathRef):
            return f"{self._use('operand')}(context, {_parts(operand)})"
        return _literal(operand.value)

    def _loop(
        self, node: For | Foreach, target: str, lines: list[str], depth: int, wrap: bool
    ) -> None:
        pad = "    " * depth
        item, saved = self._name("item"), self._name("saved")
        var = _literal(node.var)
        lines.append(f"{pad}{saved} = context.get({var}, {self._use('UNBOUND')})")
        if isinstance(node, For):
            source = f"range({self._bound(node.start)}, {self._bound(node.end)})"
        else:
            source = f"{self._use('foreach_items')}(context, {_parts(node.path)})"
        lines.append(f"{pad}for {item} in {source}:")
        lines.append(f"{pad}    context[{var}] = {item}")
        outer = self.scope.get(node.var)
        self.scope[node.var] = item
        self._nodes(node.body, target, lines, depth + 1, wrap)
        if outer is None:
            del self.scope[node.var]
        else:
            self.scope[node.var] = outer
        lines.append(f"{pad}{self._use('restore')}(context, {var}, {saved})")

    def _bound(self, bound: NumberLiteral | PathRef) -> str:
        if isinstance(bound, PathRef):
            return f"{self._use('range_bound')}(context, {_parts(bound)})"
        return repr(bound.value)


def _strip_static(body: tuple[Node, ...]) -> tuple[Node, ...] | None:
    """``body`` with the whitespace around it stripped at build time, or None when
    that depends on what a loop or a nested block renders."""
    nodes = list(body)
    while nodes and isinstance(nodes[0], Text):
        text = nodes[0].value.lstrip()
        if text:
            nodes[0] = Text(text)
            break
        nodes.pop(0)
    while nodes and isinstance(nodes[-1], Text):
        text = nodes[-1].value.rstrip()
        if text:
            nodes[-1] = Text(text)
            break
        nodes.pop()
    for edge in (nodes[:1], nodes[-1:]):
        if edge and isinstance(edge[0], If | For | Foreach):
            return None
    return tuple(nodes)


def _escape_fstring(text: str) -> str:
    return (
        json.dumps(text, ensure_ascii=False)[1:-1].replace("{", "{{").replace("}", "}}")
    )
