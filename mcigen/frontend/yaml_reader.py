"""YAML text -> data and positions, from one composed node graph.

The text is composed once; the safe constructor builds the data (exactly what
``yaml.safe_load`` returns) and the node marks give the positions. While it is
composed, the document's size with every alias expanded is counted (see
``budget.py``), so that an alias which would blow it up is reported where it is
written, before anything is built from it.
"""

from __future__ import annotations

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from . import budget
from .budget import over_budget, too_many_nodes
from .long_numbers import is_too_long, too_long_number
from .parsed import DuplicateKey, NodeSpan, ParsedText, SourceSyntaxError
from .pointers import child_pointer
from .string_offsets import StringSpan, StringStyle

_STR_TAG = "tag:yaml.org,2002:str"
_MERGE_TAG = "tag:yaml.org,2002:merge"
_STYLES = {
    None: StringStyle.PLAIN,
    "'": StringStyle.SINGLE_QUOTED,
    '"': StringStyle.DOUBLE_QUOTED,
    "|": StringStyle.LITERAL,
    ">": StringStyle.FOLDED,
}


def read_yaml(text: str, max_chars: int) -> ParsedText:
    try:
        # aliases let a few lines describe an exponentially large tree ("billion
        # laughs"), and every node of it gets a position in the source map
        loader = _MeasuringLoader(text, _Expansion(max_chars, budget.MAX_NODES))
        try:
            return _read(loader)
        finally:
            loader.dispose()
    except yaml.MarkedYAMLError as error:
        raise SourceSyntaxError(_message(error), _index(error)) from None
    except yaml.reader.ReaderError as error:
        raise SourceSyntaxError(
            f"invalid YAML: {error.reason}", error.position
        ) from None
    except yaml.YAMLError as error:
        raise SourceSyntaxError(f"invalid YAML: {error}", 0) from None
    except ValueError as error:
        if not is_too_long(error):
            raise
        raise too_long_number(text) from None


def _read(loader: yaml.SafeLoader) -> ParsedText:
    root = loader.get_single_node()
    if root is None:
        return ParsedText(None, {"": NodeSpan(0)})
    _reject_recursive_aliases(root, set(), set())
    duplicates = _duplicate_keys(root)
    parsed = ParsedText(loader.construct_document(root))
    parsed.duplicate_keys = duplicates
    # Positions are read after construction: merge keys ("<<") are flattened in
    # place then, so the node graph matches the constructed data.
    _NodeMapper(loader, parsed).map(root, "", None)
    return parsed


def _message(error: yaml.MarkedYAMLError) -> str:
    # PyYAML words its errors as a context ("while scanning a quoted scalar")
    # followed by the problem ("found unexpected end of stream").
    parts = [part for part in (error.context, error.problem) if part]
    return "invalid YAML: " + (", ".join(parts) or "malformed document")


def _index(error: yaml.MarkedYAMLError) -> int:
    mark = error.problem_mark or error.context_mark
    return mark.index if mark is not None else 0


def _children(node: Node) -> list[Node]:
    if isinstance(node, SequenceNode):
        return list(node.value)
    if isinstance(node, MappingNode):
        return [child for pair in node.value for child in pair]
    return []


def _reject_recursive_aliases(node: Node, ancestors: set[int], done: set[int]) -> None:
    ancestors.add(id(node))
    for child in _children(node):
        if id(child) in ancestors:
            raise SourceSyntaxError(
                "invalid YAML: an alias refers to a node that contains it",
                child.start_mark.index,
            )
        if id(child) not in done:
            _reject_recursive_aliases(child, ancestors, done)
    ancestors.discard(id(node))
    done.add(id(node))


def _duplicate_keys(root: Node) -> list[DuplicateKey]:
    """Keys repeated within one mapping, found before merge keys are flattened."""
    duplicates: list[DuplicateKey] = []
    visited: set[int] = set()
    pending: list[tuple[Node, str]] = [(root, "")]
    while pending:
        node, pointer = pending.pop()
        if id(node) in visited:
            continue
        visited.add(id(node))
        if isinstance(node, SequenceNode):
            pending.extend(
                (item, child_pointer(pointer, i)) for i, item in enumerate(node.value)
            )
        elif isinstance(node, MappingNode):
            seen: set[tuple[str, str]] = set()
            for key, value in node.value:
                if not isinstance(key, ScalarNode):
                    continue  # a complex key; PyYAML rejects it when constructing
                child = child_pointer(pointer, key.value)
                pending.append((value, child))
                if key.tag == _MERGE_TAG:
                    continue
                identity = (key.tag, key.value)
                if identity in seen:
                    duplicates.append(
                        DuplicateKey(key.value, child, key.start_mark.index)
                    )
                seen.add(identity)
    return sorted(duplicates, key=lambda duplicate: duplicate.key)


class _Expansion:
    """The characters (of keys and scalars) and nodes of the document so far, every
    alias counted as the whole subtree it stands for."""

    def __init__(self, max_chars: int, max_nodes: int) -> None:
        self._max_chars = max_chars
        self._max_nodes = max_nodes
        self._chars = 0
        self._nodes = 0
        self._aliased = False
        self._sizes: dict[int, tuple[int, int]] = {}

    def add_node(self, node: Node, index: int) -> None:
        """A node just composed: a scalar, or a collection whose children were
        counted as they were composed."""
        self._add(_own_chars(node), 1, index)

    def add_alias(self, node: Node, index: int) -> None:
        self._aliased = True
        self._add(*self._size(node), index)

    def _add(self, chars: int, nodes: int, index: int) -> None:
        self._chars += chars
        self._nodes += nodes
        if self._chars > self._max_chars:
            raise SourceSyntaxError(over_budget(self._max_chars), index)
        if self._nodes > self._max_nodes:
            message = (
                f"invalid YAML: aliases expand to more than {self._max_nodes} nodes"
                if self._aliased
                else too_many_nodes(self._max_nodes)
            )
            raise SourceSyntaxError(message, index)

    def _size(self, node: Node) -> tuple[int, int]:
        """Characters and nodes of ``node`` expanded, each node computed once. (An
        alias to an enclosing node sees it partly composed; such a document is
        refused after composing.)"""
        known = self._sizes.get(id(node))
        if known is not None:
            return known
        chars, nodes = _own_chars(node), 1
        for child in _children(node):
            child_chars, child_nodes = self._size(child)
            chars += child_chars
            nodes += child_nodes
        self._sizes[id(node)] = chars, nodes
        return chars, nodes


def _own_chars(node: Node) -> int:
    """The characters of a node itself: a scalar's text; a collection has none."""
    return len(node.value) if isinstance(node, ScalarNode) else 0


class _MeasuringLoader(yaml.SafeLoader):
    """The safe loader, counting the expanded document as it composes it."""

    def __init__(self, text: str, expansion: _Expansion) -> None:
        super().__init__(text)
        self._expansion = expansion

    def compose_node(self, parent: Node | None, index: int) -> Node | None:
        event = self.peek_event()  # type: ignore[no-untyped-call]
        node = super().compose_node(parent, index)
        if node is not None:
            where = event.start_mark.index if event.start_mark is not None else 0
            if isinstance(event, yaml.AliasEvent):
                self._expansion.add_alias(node, where)
            else:
                self._expansion.add_node(node, where)
        return node


class _NodeMapper:
    def __init__(self, loader: yaml.SafeLoader, parsed: ParsedText) -> None:
        self._loader = loader
        self._parsed = parsed

    def map(self, node: Node, pointer: str, key_index: int | None) -> None:
        start = node.start_mark.index
        self._parsed.nodes[pointer] = NodeSpan(start, key_index)
        if isinstance(node, ScalarNode) and node.tag == _STR_TAG:
            style = _STYLES.get(node.style, StringStyle.PLAIN)
            self._parsed.strings[pointer] = StringSpan(
                style, start, node.end_mark.index
            )
        elif isinstance(node, SequenceNode):
            for index, item in enumerate(node.value):
                self.map(item, child_pointer(pointer, index), None)
        elif isinstance(node, MappingNode):
            for key, value in node.value:
                name = self._loader.construct_object(key, deep=True)
                self.map(value, child_pointer(pointer, name), key.start_mark.index)
