"""The rewrite of one module: which ``execute`` calls are an mci-py client's, which
of them can be rewritten safely, and the module with those rewritten."""

from __future__ import annotations

import keyword
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import PurePath

import libcst as cst
from libcst.codemod import CodemodContext
from libcst.codemod.visitors import AddImportsVisitor
from libcst.metadata import (
    Assignment,
    ImportAssignment,
    MetadataWrapper,
    ParentNodeProvider,
    PositionProvider,
    QualifiedNameProvider,
    Scope,
    ScopeProvider,
)

from .targets import Target

CLIENT_CLASSES = frozenset(
    {
        "mcipy.MCIClient",
        "mcipy.client.MCIClient",
        "mcigen.MCIClient",
        "mcigen.mci_client.MCIClient",
    }
)
"""The classes whose ``execute`` is rewritten: mci-py's, and mcigen's stand-in."""
_SCHEMA_KEYWORDS = ("schema_file_path", "json_file_path")


@dataclass(frozen=True)
class LeftAlone:
    """A call not rewritten: where it is (1-based) and why."""

    line: int
    column: int
    why: str


@dataclass
class Migrated:
    code: bytes
    """The module's new bytes, in its own encoding."""
    encoding: str
    rewritten: int = 0
    left: list[LeftAlone] = field(default_factory=list)


@dataclass
class _Call:
    """An ``execute`` call of a client, and what it becomes if it can."""

    node: cst.Call
    function: str = ""
    arguments: list[tuple[str, cst.BaseExpression, cst.DictElement | None]] = field(
        default_factory=list
    )
    layout: cst.Dict | None = None
    """The properties' dict when it spans lines: the call takes its layout."""
    why: str | None = None
    bound: tuple[Scope, str] | None = None
    """The scope and name the result is assigned to, if it is."""


def migrate_module(
    code: bytes, package: str, schema: PurePath, tools: Mapping[str, Target]
) -> Migrated:
    """``code`` with every client's ``execute`` call of a tool in ``tools`` that
    can be rewritten as a call of ``package``'s function; the others reported.
    Raises ``libcst.ParserSyntaxError``."""
    wrapper = MetadataWrapper(cst.parse_module(code))
    finder = _Finder(package, schema, tools)
    wrapper.visit(finder)
    calls = list(finder.calls.values())
    reads = _check_bindings(calls, wrapper)
    rewriting = {id(call.node): call for call in calls if call.why is None}
    changed = wrapper.module.visit(_Rewriter(rewriting, reads))
    rewritten = [call for call in calls if call.why is None]
    if rewritten:
        context = CodemodContext()
        for function in sorted({call.function for call in rewritten}):
            AddImportsVisitor.add_needed_import(context, package, function)
        changed = AddImportsVisitor(context).transform_module(changed)
    left = [
        LeftAlone(*finder.positions[id(call.node)], call.why)
        for call in calls
        if call.why is not None
    ]
    return Migrated(changed.bytes, changed.encoding, len(rewritten), left)


class _Finder(cst.CSTVisitor):
    """Finds the clients, their ``execute`` calls, and what each call becomes."""

    METADATA_DEPENDENCIES = (
        QualifiedNameProvider,
        PositionProvider,
        ScopeProvider,
        ParentNodeProvider,
    )

    def __init__(
        self, package: str, schema: PurePath, tools: Mapping[str, Target]
    ) -> None:
        self.package = package
        self.schema = schema
        self.tools = tools
        self.clients: dict[str, str | None] = {}
        """Each client attribute's code (``self.client``), and why its calls stay
        (None: they may be rewritten)."""
        self.other_values: set[str] = set()
        """Attributes assigned something other than a client somewhere."""
        self.client_names: dict[int, str | None] = {}
        """The nodes that bind a name to a client (an assignment's target, an
        annotated parameter), and why its calls stay."""
        self.calls: dict[int, _Call] = {}
        self.positions: dict[int, tuple[int, int]] = {}
        self._module: cst.Module | None = None

    def visit_Module(self, node: cst.Module) -> None:
        self._module = node

    def _code(self, node: cst.CSTNode) -> str:
        assert self._module is not None
        return self._module.code_for_node(node)

    def _is_client_class(self, node: cst.CSTNode) -> bool:
        names = self.get_metadata(QualifiedNameProvider, node, set())
        return any(name.name in CLIENT_CLASSES for name in names)

    def _constructed(self, value: cst.BaseExpression | None) -> bool:
        return isinstance(value, cst.Call) and self._is_client_class(value.func)

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            self._assigned(target.target, node.value)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._assigned(node.target, node.value)

    def visit_WithItem(self, node: cst.WithItem) -> None:
        if node.asname is not None:
            self._assigned(node.asname.name, node.item)

    def visit_Param(self, node: cst.Param) -> None:
        if node.annotation is not None and self._is_client_class(
            node.annotation.annotation
        ):
            self.client_names[id(node)] = None

    def _assigned(
        self, target: cst.BaseExpression, value: cst.BaseExpression | None
    ) -> None:
        constructed = self._constructed(value)
        why = self._other_schema(value) if isinstance(value, cst.Call) else None
        if isinstance(target, cst.Name):
            if constructed:
                self.client_names[id(target)] = why
            return
        code = self._code(target)
        if not constructed:
            self.other_values.add(code)
            return
        self.clients[code] = self.clients.get(code) or why

    def _client(self, expression: cst.BaseExpression, call: cst.Call) -> str | None:
        """Why calls on ``expression`` stay, "" when they may be rewritten, None
        when it is no client."""
        if not isinstance(expression, cst.Name):
            code = self._code(expression)
            if code not in self.clients:
                return None
            if code in self.other_values:
                return f"'{code}' is not always an MCIClient"
            return self.clients[code] or ""
        scope = self.get_metadata(ScopeProvider, call, None)
        bindings = scope[expression.value] if scope is not None else set()
        reasons = [
            (
                self.client_names.get(id(binding.node), "-")
                if isinstance(binding, Assignment)
                else "-"
            )
            for binding in bindings
        ]
        if not any(reason != "-" for reason in reasons):
            return None
        if "-" in reasons:
            return f"'{expression.value}' is not always an MCIClient"
        return next((reason for reason in reasons if reason), "")

    def _other_schema(self, construction: cst.Call) -> str | None:
        """Why a client's calls are not this package's: it reads another schema."""
        given = [
            arg.value
            for arg in construction.args
            if (arg.keyword is None and arg.star == "")
            or (arg.keyword is not None and arg.keyword.value in _SCHEMA_KEYWORDS)
        ][:1]
        if not given or not isinstance(given[0], cst.SimpleString):
            return None
        path = given[0].evaluated_value
        if isinstance(path, bytes) or PurePath(path).name == self.schema.name:
            return None
        return f"the client reads {path!r}, not {self.schema.name}"

    def leave_Call(self, node: cst.Call) -> None:
        func = node.func
        if not (isinstance(func, cst.Attribute) and func.attr.value == "execute"):
            return
        client = self._client(func.value, node)
        if client is None:
            return
        position = self.get_metadata(PositionProvider, node).start
        self.positions[id(node)] = (position.line, position.column + 1)
        call = _Call(node)
        self.calls[id(node)] = call
        call.why = client or self._planned(call) or self._use(call)
        if call.why is None and _comments(_typed_call(call, node)) < _comments(node):
            call.why = "a comment in the call would be lost"

    def _planned(self, call: _Call) -> str | None:
        """Why the call's arguments cannot become keywords, or None once
        ``call`` holds them."""
        arguments = _arguments(call.node)
        if isinstance(arguments, str):
            return arguments
        name, properties = arguments
        if not isinstance(name, cst.SimpleString | cst.ConcatenatedString):
            return "the tool name is not a string literal"
        tool = name.evaluated_value
        if not isinstance(tool, str):
            return "the tool name is not a string literal"
        target = self.tools.get(tool)
        if target is None:
            return f"{self.package} has no tool {tool!r}"
        call.function = target.function
        if properties is None or (
            isinstance(properties, cst.Name) and properties.value == "None"
        ):
            return self._free(target.function, call.node)
        if not isinstance(properties, cst.Dict):
            return "the properties are not a dict literal"
        for element in properties.elements:
            if not isinstance(element, cst.DictElement):
                return "the properties unpack a mapping (**)"
            key = element.key
            prop = key.evaluated_value if isinstance(key, cst.SimpleString) else None
            if not isinstance(prop, str):
                return "a property name is not a string literal"
            parameter = _parameter(prop, target)
            if parameter is None:
                return f"{prop!r} is no property of {tool!r}"
            if any(parameter == known for known, _, _ in call.arguments):
                return f"{prop!r} is given twice"
            call.arguments.append((parameter, element.value, element))
        if "\n" in self._code(properties):
            call.layout = properties
        return self._free(target.function, call.node)

    def _free(self, function: str, node: cst.Call) -> str | None:
        """Why ``function`` cannot be imported to be called at ``node``: the name
        means something else there."""
        scope = self.get_metadata(ScopeProvider, node, None)
        if scope is None or function not in scope:
            return None
        for assignment in scope[function]:
            if not (
                isinstance(assignment, ImportAssignment)
                and isinstance(assignment.node, cst.ImportFrom)
                and assignment.node.module is not None
                and self._code(assignment.node.module) == self.package
            ):
                return f"{function!r} already names something else here"
        return None

    def _use(self, call: _Call) -> str | None:
        """Why the result cannot be a ``ToolResult``, from how it is used."""
        parent = self.get_metadata(ParentNodeProvider, call.node)
        if isinstance(parent, cst.Expr):
            return None
        if isinstance(parent, cst.Attribute) and parent.value is call.node:
            return None if parent.attr.value == "result" else _whole(parent.attr.value)
        if (
            isinstance(parent, cst.Assign)
            and len(parent.targets) == 1
            and isinstance(parent.targets[0].target, cst.Name)
        ):
            scope = self.get_metadata(ScopeProvider, parent)
            if scope is not None:
                call.bound = (scope, parent.targets[0].target.value)
                return None
        return "its ExecutionResult is used as a whole"


def _whole(attribute: str) -> str:
    return f"its ExecutionResult's {attribute!r} has no ToolResult twin"


def _arguments(
    node: cst.Call,
) -> tuple[cst.BaseExpression, cst.BaseExpression | None] | str:
    """The tool name's and the properties' expressions of an ``execute`` call, or
    why they cannot be told."""
    given: dict[str, cst.BaseExpression] = {}
    for index, arg in enumerate(node.args):
        if arg.star:
            return "the arguments unpack a sequence or mapping (* or **)"
        name = arg.keyword.value if arg.keyword is not None else None
        name = name or ("tool_name", "properties")[min(index, 1)]
        if index > 1 or name in given or name not in ("tool_name", "properties"):
            return "execute takes tool_name and properties"
        given[name] = arg.value
    if "tool_name" not in given:
        return "execute takes tool_name and properties"
    return given["tool_name"], given.get("properties")


def _parameter(prop: str, target: Target) -> str | None:
    """The keyword ``prop`` is passed as, or None if it cannot be one."""
    if target.keywords is not None:
        return target.keywords.get(prop)
    if prop.isidentifier() and not keyword.iskeyword(prop):
        return prop
    return None


def _check_bindings(calls: list[_Call], wrapper: MetadataWrapper) -> set[int]:
    """A result assigned to a name may lose its ``.result`` step only when every
    assignment of that name in its scope is such a call and every read of it
    goes through ``.result``; otherwise each of those calls stays. Returns the
    reads that lose their ``.result`` step: those of the names whose calls go."""
    parents = wrapper.resolve(ParentNodeProvider)
    positions = wrapper.resolve(PositionProvider)
    by_target: dict[int, _Call] = {}
    for call in calls:
        if call.bound is not None:
            by_target[id(parents[call.node])] = call
    groups: dict[tuple[int, str], tuple[Scope, str, list[_Call]]] = {}
    for call in calls:
        if call.bound is not None:
            scope, name = call.bound
            groups.setdefault((id(scope), name), (scope, name, []))[2].append(call)
    reads: set[int] = set()
    for scope, name, group in groups.values():
        why = None
        seen: set[int] = set()
        for assignment in scope.assignments[name]:
            why = why or _other_binding(assignment, parents, by_target)
            for access in assignment.references:
                read = access.node
                seen.add(id(read))
                parent = parents.get(read)
                if not (
                    isinstance(parent, cst.Attribute)
                    and parent.value is read
                    and parent.attr.value == "result"
                ):
                    line = positions[read].start.line
                    why = (
                        why or f"{name!r} is used as an ExecutionResult on line {line}"
                    )
        if why is None:
            reads |= seen
        for call in group:
            call.why = call.why or why
    return reads


def _other_binding(
    assignment: object,
    parents: Mapping[cst.CSTNode, cst.CSTNode],
    by_target: Mapping[int, _Call],
) -> str | None:
    """Why ``assignment`` keeps its name's calls as they are: it binds something
    other than a rewritable call."""
    if not isinstance(assignment, Assignment):
        return "the name is also bound otherwise"
    target = parents.get(assignment.node)
    assign = parents.get(target) if target is not None else None
    call = by_target.get(id(assign))
    if call is None or call.why is not None:
        return "the name is also bound otherwise"
    return None


class _Rewriter(cst.CSTTransformer):
    def __init__(self, calls: Mapping[int, _Call], reads: set[int]) -> None:
        self.calls = calls
        self.reads = reads

    def leave_Call(
        self, original_node: cst.Call, updated_node: cst.Call
    ) -> cst.BaseExpression:
        call = self.calls.get(id(original_node))
        if call is None:
            return updated_node
        return _typed_call(call, updated_node)

    def leave_Attribute(
        self, original_node: cst.Attribute, updated_node: cst.Attribute
    ) -> cst.BaseExpression:
        if original_node.attr.value != "result":
            return updated_node
        dropped = id(original_node.value)
        if dropped not in self.calls and dropped not in self.reads:
            return updated_node
        if original_node.lpar:  # (r.result) keeps its parentheses
            return updated_node.value.with_changes(
                lpar=original_node.lpar, rpar=original_node.rpar
            )
        return updated_node.value


def _typed_call(call: _Call, updated: cst.Call) -> cst.Call:
    """``function(keyword=value, ...)``, in the properties' layout when they span
    lines, else on one line."""
    tight = cst.AssignEqual(
        whitespace_before=cst.SimpleWhitespace(""),
        whitespace_after=cst.SimpleWhitespace(""),
    )
    layout = call.layout
    args = []
    for index, (parameter, value, element) in enumerate(call.arguments):
        last = index == len(call.arguments) - 1
        if layout is not None and element is not None:
            comma = element.comma
            after = (
                layout.rbrace.whitespace_before if last else cst.SimpleWhitespace("")
            )
        else:
            comma = cst.MaybeSentinel.DEFAULT
            after = cst.SimpleWhitespace("")
        args.append(
            cst.Arg(
                value=value,
                keyword=cst.Name(parameter),
                equal=tight,
                comma=comma,
                whitespace_after_arg=after,
            )
        )
    before = (
        layout.lbrace.whitespace_after
        if layout is not None
        else cst.SimpleWhitespace("")
    )
    return updated.with_changes(
        func=cst.Name(call.function), args=args, whitespace_before_args=before
    )


def _comments(node: cst.CSTNode) -> int:
    counter = _CommentCounter()
    node.visit(counter)
    return counter.count


class _CommentCounter(cst.CSTVisitor):
    def __init__(self) -> None:
        self.count = 0

    def visit_Comment(self, node: cst.Comment) -> None:
        self.count += 1
