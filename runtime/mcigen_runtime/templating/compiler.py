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

The generated code follows the template interpreter of mcigen's tests exactly,
which the tests hold to mci-py's output and this compiler to the same output.
"""

from __future__ import annotations
import __future__

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from . import budget as output_budget
from . import lookup
from .parser import parse_native, parse_template
from .pyliteral import literal, string_body
from .syntax import (
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

_PROPS_ROOTS = ("props", "input")
_LOCALS = {"props": "props", "input": "props", "env": "env"}
"""Context roots that the generated function also holds in a local variable."""
EVERY_ROOT = frozenset(_LOCALS)


class _KeyRead(str):
    """A read of a key of a local (``env["TEAM"]``), as source, knowing its parts."""

    local: str
    key: str

    def __new__(cls, local: str, key: str) -> _KeyRead:
        read = super().__new__(cls, f"{local}[{key}]")
        read.local, read.key = local, key
        return read


@dataclass
class CompiledText:
    """Statements computing the text, the expression of the text, and the runtime
    helpers the statements call (by their names on the ``mcigen_runtime.templating``
    face)."""

    statements: list[str] = field(default_factory=list)
    expression: str = '""'
    needs_context: bool = False
    bounded: bool = False
    """Whether its loops count turns and output against ``limit``."""
    props_keys: set[str] = field(default_factory=set)
    """The keys the code reads from the ``props`` local (without ``context``)."""
    helpers: set[str] = field(default_factory=set)

    @property
    def may_fail(self) -> bool:
        """Whether running the statements may raise ``TemplateRuntimeError``."""
        return bool(self.helpers - _INFALLIBLE)


_INFALLIBLE = frozenset({"member", "NOTHING", "Entry", "UNBOUND", "restore"})
"""Helpers that never raise: code calling only these needs no error handling."""

_INLINE_DEPTH = 8
"""How deeply blocks nest in one generated function; a body deeper than this is a
function of its own. CPython refuses a function with more than 20 nested loops, or a
file indented more than 100 levels, and black's formatting cost grows with depth."""
_FSTRING_FIELDS = 64
"""The most placeholders one generated f-string holds."""
_INLINE_TESTS = 8
"""How many alternatives of a fallback chain are tested in line; a longer chain is
one call of the runtime's ``first`` over a tuple: a flat expression at any length."""


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
    inline_members: bool = False,
    limit: str | None = None,
) -> CompiledText:
    """``prefix`` names the variables holding placeholder values, so that several
    templates can be compiled into one function; ``roots`` are the context roots the
    function holds as locals (``props`` and ``env``; an MCP server's settings see
    only ``env``). ``inline_members`` reads a loop variable's members from a dict
    in line rather than through a call: faster, but long for code people read.
    ``limit`` is the expression of the most characters (and loop turns) the text
    may take; without it loops are unbounded (the template's own are constant)."""
    compiler = _Compiler(present, prefix, roots, inline_members, limit)
    return compiler.compile(template)


Renderer = Callable[[dict[str, Any], int], str]


def compile_renderer(template: Template, name: str = "<template>") -> Renderer:
    """A function ``(context, limit) -> text`` that renders ``template``, compiled
    to Python, raising :class:`~.budget.OutputLimitError` past ``limit``
    characters or loop turns; ``name`` is shown in tracebacks."""
    code = compile_text(template, frozenset(), inline_members=True, limit="limit")
    lines = [
        "def render(context, limit):",
        '    props = context.get("props", {})',
        '    env = context.get("env", {})',
    ]
    for statement in code.statements:
        lines.extend("    " + line for line in statement.split("\n"))
    lines.append(f"    return {code.expression}")
    namespace = {
        f"_{helper}": getattr(helper_module(helper), helper) for helper in code.helpers
    }
    # Annotations of the functions holding deep bodies stay unevaluated.
    code_object = compile(
        "\n".join(lines), name, "exec", __future__.annotations.compiler_flag
    )
    exec(code_object, namespace)  # noqa: S102
    renderer: Renderer = namespace["render"]
    return renderer


def helper_module(helper: str) -> Any:
    """The runtime module defining a helper that compiled code calls."""
    return output_budget if helper in _BUDGET_HELPERS else lookup


_BUDGET_HELPERS = frozenset({"counted", "loops_too_long", "output_too_long"})


def _counts(target: str) -> tuple[str, str]:
    """The locals holding a list's counted characters and its recount."""
    return f"{target}_chars", f"{target}_recount"


def _parts(path: PathRef) -> str:
    items = [literal(p) for p in path.parts]
    return f"({items[0]},)" if len(items) == 1 else "(" + ", ".join(items) + ")"


class _Compiler:
    def __init__(
        self,
        present: frozenset[str],
        prefix: str,
        roots: frozenset[str],
        inline_members: bool = False,
        limit: str | None = None,
    ) -> None:
        self.present = present
        self.prefix = prefix
        self.roots = roots
        self.inline_members = inline_members
        self.limit = limit
        self.bounded = False
        """Whether loops count turns (in the locals ``turns_left`` and ``limit``) and
        output: the template has a loop and a limit."""
        self.counted: set[str] = set()
        """The lists whose length loops check (their counts are locals to set)."""
        self.result = CompiledText()
        self.counter = 0
        self.context_reads = 0
        """How many expressions so far read ``context``: a loop whose body reads none
        need not bind its variable there."""
        self.scope: dict[str, str] = {}
        """Loop variables in scope: name -> the local variable holding its value."""
        self.counters: set[str] = set()
        """The locals of ``@for`` loops: they hold ints, never entries."""
        self.pending: list[_Body] = []
        """Bodies nested too deeply to be compiled in line, to compile as functions."""

    def compile(self, template: Template) -> CompiledText:
        if not template.has_directives:
            self.result.expression = self._fstring(
                template.nodes, self.result.statements, ""
            )
        else:
            self.bounded = self.limit is not None and _has_loop(template.nodes)
            self.result.bounded = self.bounded
            lines: list[str] = []
            if self.bounded:
                if self.limit != "limit":  # a renderer takes it as its parameter
                    lines.append(f"limit = {self.limit}")
                lines.append("turns_left = limit")
            lines.append("out: list[str] = []")
            at = len(lines) - 1
            self._nodes(template.nodes, "out", lines, 0, wrap=False)
            self._declared(lines, at, "out", "")
            self.result.statements = [*self._functions(), *lines]
            self.result.expression = '"".join(out)'
            if self.bounded:  # checked in the statements, where failures are caught
                too_long = self._use("output_too_long")
                self.result.statements += [
                    'rendered = "".join(out)',
                    f"if len(rendered) > limit:\n    raise {too_long}(limit)",
                ]
                self.result.expression = "rendered"
        return self.result

    def _functions(self) -> list[str]:
        """The definitions of the functions holding deep bodies, in the order their
        calls were made; compiling one may add more."""
        lines: list[str] = []
        while self.pending:
            body = self.pending.pop(0)
            self.scope = body.scope
            params = [f"{body.target}: list[str]"] + [
                f"{local}: {'int' if local in self.counters else 'Any'}"
                for local in body.scope.values()
            ]
            if self.bounded:
                chars, recount = _counts(body.target)
                params += ["turns_left: int", "limit: int"]
                params += [f"{chars}: int", f"{recount}: int"]
            returns = "tuple[int, int, int]" if self.bounded else "None"
            lines.append(f"def {body.name}({', '.join(params)}) -> {returns}:")
            self._nodes(body.nodes, body.target, lines, 1, body.wrap)
            if self.bounded:  # the turns its loops left and its list's counts
                lines.append(f"    return turns_left, {chars}, {recount}")
        self.scope = {}
        return lines

    def _deferred(self, nodes: tuple[Node, ...], target: str, wrap: bool) -> str:
        """A call of a function that will append what ``nodes`` render to ``target``,
        with the loop variables in scope as its arguments."""
        body = _Body(self._name("block"), nodes, target, wrap, dict(self.scope))
        self.pending.append(body)
        # What the body reads is not known yet: loops around it bind their variables.
        self.context_reads += 1
        arguments = [target, *body.scope.values()]
        if not self.bounded:
            return f"{body.name}({', '.join(arguments)})"
        self.counted.add(target)
        counts = ", ".join(_counts(target))
        arguments += ["turns_left", "limit", counts]
        return f"turns_left, {counts} = {body.name}({', '.join(arguments)})"

    def _declared(self, lines: list[str], at: int, target: str, pad: str) -> None:
        """Finish the declaration of the empty list ``target`` at ``lines[at]``: it
        holds the first piece when the next line appends one, and its counts start
        after it when a loop checks them."""
        append, bound = f"{pad}{target}.append(", f"{pad}{self.prefix}_"
        after = at + 1
        while after < len(lines) and lines[after].startswith(bound):
            after += 1  # the values of the first piece
        if after < len(lines) and lines[after].startswith(append):
            first = lines[after][len(append) : -1]
            lines[after] = f"{pad}{target}: list[str] = [{first}]"
            del lines[at]
            at = after - 1
        if target in self.counted:
            chars, recount = _counts(target)
            lines.insert(at + 1, f"{pad}{chars}, {recount} = 0, {output_budget.STRIDE}")

    def _name(self, stem: str) -> str:
        self.counter += 1
        return f"{stem}_{self.counter}"

    def _use(self, helper: str) -> str:
        self.result.helpers.add(helper)
        return f"_{helper}"

    def _context(self, failing: bool = False) -> str:
        """The context expression for a runtime call. A call made only to word an
        error (``failing``) gets the loop variables in scope added to a copy, so
        that the loops around it need not bind them in ``context`` on every turn."""
        self.result.needs_context = True
        if failing and self.scope:
            bound = ", ".join(f"{literal(k)}: {v}" for k, v in self.scope.items())
            return f"{{**context, {bound}}}"
        self.context_reads += 1
        return "context"

    # -- text and placeholders -------------------------------------------------

    def _fstring(self, nodes: Sequence[Node], statements: list[str], pad: str) -> str:
        """An f-string over the placeholders (bound to variables by ``statements``
        first), or a literal. A placeholder written again reads the variable of its
        first time: nothing between the two can change its value. Many placeholders
        make several f-strings joined: Python 3.11 parses one in quadratic time."""
        chunks: list[list[str]] = [[]]
        fields = 0
        variables: dict[str, str] = {}
        for node in nodes:
            if isinstance(node, Text):
                chunks[-1].append(_escape_fstring(node.value))
                continue
            assert isinstance(node, Placeholder)
            variable = variables.get(node.source)
            if variable is None:
                variable = self._loop_local(node)
            if variable is None:
                variable = self._name(self.prefix)
                statements.append(f"{pad}{variable} = {self._value(node)}")
            variables[node.source] = variable
            if fields == _FSTRING_FIELDS:
                chunks.append([])
                fields = 0
            chunks[-1].append("{" + variable + "}")
            fields += 1
        if not variables:
            return literal("".join(n.value for n in nodes if isinstance(n, Text)))
        fstrings = ['f"' + "".join(chunk) + '"' for chunk in chunks]
        if len(fstrings) == 1:
            return fstrings[0]
        return '"".join((' + ", ".join(fstrings) + "))"

    def _loop_local(self, node: Placeholder) -> str | None:
        """The local holding the loop variable that is all of the placeholder
        (``{{item}}``), which the f-string formats as it is, or None."""
        alternative, *others = node.alternatives
        if others or not isinstance(alternative, PathRef):
            return None
        parts = alternative.parts
        return self.scope.get(parts[0]) if len(parts) == 1 else None

    def structure(self, value: object) -> str:
        """An expression building a JSON value whose strings are templates; a string
        that is exactly ``{!! path !!}`` becomes the native value at the path."""
        if isinstance(value, dict):
            items = ", ".join(
                f"{literal(k)}: {self.structure(v)}" for k, v in value.items()
            )
            return "{" + items + "}"
        if isinstance(value, list):
            return "[" + ", ".join(self.structure(v) for v in value) + "]"
        if not isinstance(value, str):
            return repr(value)
        native = parse_native(value)
        if native is not None:
            alternatives = ", ".join(
                literal(a.value) if isinstance(a, StringLiteral) else _parts(a)
                for a in native.alternatives
            )
            trailing = "," if len(native.alternatives) == 1 else ""
            call = f"{self._use('native')}({self._context()}, {literal(value)}"
            return f"{call}, ({alternatives}{trailing}))"
        return self._fstring(parse_template(value).nodes, self.result.statements, "")

    def _value(self, node: Placeholder) -> str:
        """An expression for the placeholder's value (not yet a string): the fallback
        chain as conditional expressions over reads from locals where every path is
        one (``{{props.team | env.TEAM | 'us'}}``): no call, no context. The
        runtime's ``first`` ends a chain without a literal, for its error message,
        and takes any chain with other paths."""
        tests: list[tuple[str, str]] = []
        for alternative in node.alternatives:
            if isinstance(alternative, StringLiteral):
                return self._chain(tests, literal(alternative.value), literal_end=True)
            read = self._read(alternative.parts, shown=True)
            if read is None:
                return self._first(node, failing=False)
            value, test = read
            if test is None:
                return self._chain(tests, value)
            if len(tests) == _INLINE_TESTS:
                return self._first(node, failing=False)
            tests.append((value, test))
        return self._chain(tests, self._first(node, failing=True))

    def _read(
        self, parts: tuple[str, ...], shown: bool = False
    ) -> tuple[str, str | None] | None:
        """(value, test) of a path read straight from a local, or None for a path
        the runtime must walk. The test tells whether the value is there; None when
        it always is: a loop variable, or a declared property that is required or
        has a default. A loop variable's member is read from a dict in line, as
        ``member`` reads it (input holds no ``Entry``: only loops make those). A
        value only ``shown`` as text may be an ``Entry``: it formats as its value."""
        root = parts[0]
        if root in self.scope:
            variable = self.scope[root]
            if len(parts) == 1 and (shown or variable in self.counters):
                return variable, None
            if len(parts) == 1:
                entry = self._use("Entry")
                value = (
                    f"{variable}.value if type({variable}) is {entry} else {variable}"
                )
                return value, None
            if len(parts) > 2:
                return None
            found, key = self._name("found"), literal(parts[1])
            member, nothing = self._use("member"), self._use("NOTHING")
            read = f"{member}({variable}, {key})"
            if self.inline_members:
                read = f"{variable}.get({key}, {nothing}) if type({variable}) is dict else {read}"
            return found, f"({found} := {read}) is not {nothing}"
        if len(parts) != 2 or root not in self.roots:
            return None
        local, key = _LOCALS[root], literal(parts[1])
        if local == "props":
            self.result.props_keys.add(parts[1])
        if local == "props" and parts[1] in self.present:
            return f"props[{key}]", None
        return _KeyRead(local, key), f"{key} in {local}"

    @staticmethod
    def _chain(
        tests: list[tuple[str, str]], otherwise: str, literal_end: bool = False
    ) -> str:
        """The values in turn, each where its test holds, else ``otherwise``. A
        chain ending in a literal after a key of a local reads that key with
        ``get`` (one lookup where the test and the read make two)."""
        expression = otherwise
        end = tests[-1][0] if literal_end and tests else None
        if isinstance(end, _KeyRead):
            tests.pop()
            expression = f"{end.local}.get({end.key}, {otherwise})"
        for value, test in reversed(tests):
            expression = f"{value} if {test} else {expression}"
        return expression

    def _first(self, node: Placeholder, failing: bool) -> str:
        alternatives = ", ".join(
            literal(a.value) if isinstance(a, StringLiteral) else _parts(a)
            for a in node.alternatives
        )
        trailing = "," if len(node.alternatives) == 1 else ""
        first = self._use("first")
        context = self._context(failing)
        return f"{first}({context}, {literal(node.source)}, ({alternatives}{trailing}))"

    # -- blocks ----------------------------------------------------------------

    def _nodes(
        self,
        nodes: tuple[Node, ...],
        target: str,
        lines: list[str],
        depth: int,
        wrap: bool,
    ) -> None:
        """Append what ``nodes`` render to ``target``. Unless ``wrap`` asks to mark
        every value (for stripping), a run of text and placeholders is one append."""
        pad = "    " * depth
        if depth > _INLINE_DEPTH and nodes:
            lines.append(pad + self._deferred(nodes, target, wrap))
            return
        run: list[Node] = []
        for node in (*nodes, None):
            if isinstance(node, Text | Placeholder) and not (run and wrap):
                run.append(node)
                continue
            if run:
                self._append_run(run, target, lines, pad, wrap)
                run = []
            if isinstance(node, Text | Placeholder):
                run.append(node)
            elif isinstance(node, If):
                self._if(node, target, lines, depth, wrap)
            elif node is not None:
                self._loop(node, target, lines, depth, wrap)

    def _append_run(
        self, run: list[Node], target: str, lines: list[str], pad: str, wrap: bool
    ) -> None:
        if len(run) == 1 and isinstance(run[0], Placeholder):
            value = f"str({self._value(run[0])})"
            if wrap:
                value = f"{self._use('Value')}({value})"
        else:
            value = self._fstring(run, lines, pad)
        lines.append(f"{pad}{target}.append({value})")

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
        pad = "    " * depth
        lines.append(f"{pad}{pieces}: list[str] = []")
        at = len(lines) - 1
        self._nodes(branch.body, pieces, lines, depth, wrap=True)
        self._declared(lines, at, pieces, pad)
        strip = self._use("strip_pieces")
        lines.append(f"{pad}{target}.extend({strip}({pieces}))")

    def _condition(self, condition: Condition) -> str:
        if condition.op is None or condition.right is None:
            assert isinstance(condition.left, PathRef)
            read = self._read(condition.left.parts)
            if read is None:
                truthy = self._use("truthy")
                return f"{truthy}({self._context()}, {_parts(condition.left)})"
            value, test = read
            return value if test is None else f"({test} and {value})"
        left, right = self._operand(condition.left), self._operand(condition.right)
        general = f"{self._use('compare')}({left}, {literal(condition.op)}, {right})"
        if _plain_read(condition.left, left) and _number(condition.right):
            # an int against a number compares as Python does: no call for it
            return (
                f"({left} {condition.op} {right} if type({left}) is int else {general})"
            )
        return general

    def _operand(self, operand: Operand) -> str:
        if not isinstance(operand, PathRef):
            return literal(operand.value)
        read = self._read(operand.parts)
        if read is None:
            return f"{self._use('operand')}({self._context()}, {_parts(operand)})"
        value, test = read
        own_text = literal(".".join(operand.parts))
        return value if test is None else f"({value} if {test} else {own_text})"

    def _loop(
        self, node: For | Foreach, target: str, lines: list[str], depth: int, wrap: bool
    ) -> None:
        pad = "    " * depth
        item = self._name("item")
        plain = None
        if isinstance(node, For):
            self.counters.add(item)
            source = self._range(node)
        else:
            source, plain = self._items(node)
        body: list[str] = []
        if self.bounded:
            source = source if plain is None else plain
            source = self._charged(node, source, item, lines, pad, plain is not None)
            body += self._checked(target, pad + "    ")
        outer = self.scope.get(node.var)
        self.scope[node.var] = item
        reads_before = self.context_reads
        self._nodes(node.body, target, body, depth + 1, wrap)
        if outer is None:
            del self.scope[node.var]
        else:
            self.scope[node.var] = outer
        if self.context_reads == reads_before:  # the body reads locals only
            lines.append(f"{pad}for {item} in {source}:")
            lines.extend(body or [f"{pad}    pass"])
            return
        saved, var = self._name("saved"), literal(node.var)
        context = self._context()
        lines.append(f"{pad}{saved} = {context}.get({var}, {self._use('UNBOUND')})")
        lines.append(f"{pad}for {item} in {source}:")
        lines.append(f"{pad}    {context}[{var}] = {item}")
        lines.extend(body)
        lines.append(f"{pad}{self._use('restore')}({context}, {var}, {saved})")

    def _charged(
        self,
        node: For | Foreach,
        source: str,
        item: str,
        lines: list[str],
        pad: str,
        plain: bool,
    ) -> str:
        """What a bounded loop over ``item`` iterates: its items, bound to a local
        by lines added to ``lines`` that charge their turns before the first (a
        range's length is taken from its ends: ``len`` fails past
        ``sys.maxsize``). A ``plain`` read that is not a list goes through the
        runtime's ``items_of``, tested once it is bound."""
        items = f"items_{item.removeprefix('item_')}"
        turns = (
            f"max(0, {items}.stop - {items}.start)"
            if isinstance(node, For)
            else f"len({items})"
        )
        lines.append(f"{pad}{items} = {source}")
        if plain:
            lines.append(f"{pad}if type({items}) is not list:")
            lines.append(f"{pad}    {items} = {self._use('items_of')}({items})")
        lines.append(f"{pad}turns_left -= {turns}")
        lines.append(f"{pad}if turns_left < 0:")
        lines.append(f"{pad}    raise {self._use('loops_too_long')}(limit)")
        return items

    def _checked(self, target: str, pad: str) -> list[str]:
        """The lines that start a bounded loop's turn: ``target`` is counted when
        it has grown past its recount."""
        self.counted.add(target)
        chars, recount = _counts(target)
        count = f"{self._use('counted')}({target}, {chars}, {recount}, limit)"
        return [
            f"{pad}if len({target}) > {recount}:",
            f"{pad}    {chars}, {recount} = {count}",
        ]

    def _range(self, node: For) -> str:
        return f"range({self._bound(node.start)}, {self._bound(node.end)})"

    def _items(self, node: Foreach) -> tuple[str, str | None]:
        """What a ``@foreach`` iterates: a path read from a local is its value when
        that is a list, else goes through the runtime's ``items_of``, and through the
        general walk only when it is not there. Second, that read itself when it is
        plain (always there), for a bounded loop to bind and test once."""
        read = self._read(node.path.parts)
        if read is not None and read[1] is None:
            return self._listed(read[0]), read[0]
        context = self._context(failing=read is not None)
        walk = f"{self._use('foreach_items')}({context}, {_parts(node.path)})"
        if read is None:
            return walk, None
        value, test = read
        return f"({self._listed(value)}) if {test} else {walk}", None

    def _listed(self, value: str) -> str:
        """``items_of(value)`` with no call for a list (``value`` is a plain read:
        evaluated twice)."""
        return f"{value} if type({value}) is list else {self._use('items_of')}({value})"

    def _bound(self, bound: NumberLiteral | PathRef) -> str:
        if isinstance(bound, PathRef):
            return f"{self._use('range_bound')}({self._context()}, {_parts(bound)})"
        return repr(bound.value)


@dataclass
class _Body:
    """A body compiled as a function ``name`` appending to ``target``; ``scope`` maps
    the loop variables around it to the locals (then parameters) holding them."""

    name: str
    nodes: tuple[Node, ...]
    target: str
    wrap: bool
    scope: dict[str, str]


_PLAIN_READ = re.compile(r"\w+(\[[^\[\]()]*\])?")
"""A local or one subscript of it: code a condition may evaluate twice."""


def _plain_read(operand: Operand, code: str) -> bool:
    return isinstance(operand, PathRef) and _PLAIN_READ.fullmatch(code) is not None


def _number(operand: Operand) -> bool:
    return isinstance(operand, NumberLiteral) and type(operand.value) in (int, float)


def _has_loop(nodes: tuple[Node, ...]) -> bool:
    for node in nodes:
        if isinstance(node, For | Foreach):
            return True
        if isinstance(node, If) and any(_has_loop(b.body) for b in node.branches):
            return True
    return False


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
    return string_body(text).replace("{", "{{").replace("}", "}}")
