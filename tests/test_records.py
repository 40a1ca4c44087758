"""The records (the manifest's, the tree's and the package cache's) behave as
frozen dataclasses: each is held to the ``@dataclass(frozen=True)`` made of its
own annotations and defaults, so a field added to the annotations but not to
``__init__`` (or in another order, or with another default) fails here."""

from __future__ import annotations

import copy
import dataclasses
import inspect
import pickle
from typing import Any

import pytest
from mcigen_runtime import manifest, tree
from mcigen_runtime.records import Record

from mcigen import package_cache

RECORDS: list[type[Record]] = [
    manifest.Probe,
    manifest.EnvUse,
    manifest.ToolEntry,
    manifest.ServerEntry,
    manifest.RuntimeSettings,
    manifest.Manifest,
    tree.TreeNode,
    tree.TreeLeaf,
    tree.Tree,
    package_cache.CachedPackage,
    package_cache.Compiling,
    package_cache.Contents,
    package_cache._Record,
]

_NO_DEFAULT = object()


def _twin(record: type[Record]) -> Any:
    """The frozen dataclass of ``record``'s annotations and class defaults."""
    specs: list[tuple[str, Any] | tuple[str, Any, Any]] = []
    for name, annotation in record.__annotations__.items():
        default = record.__dict__.get(name, _NO_DEFAULT)
        if default is _NO_DEFAULT:
            specs.append((name, annotation))
        else:
            specs.append((name, annotation, dataclasses.field(default=default)))
    return dataclasses.make_dataclass(record.__name__, specs, frozen=True)


def _values(record: type[Record], tag: str) -> dict[str, str]:
    """A hashable value for every field, different for each ``tag``."""
    return {name: f"{name}-{tag}" for name in record.__annotations__}


def _signature(cls: type) -> list[tuple[str, Any, Any]]:
    parameters = inspect.signature(cls).parameters.values()
    return [(p.name, p.kind, p.default) for p in parameters]


@pytest.mark.parametrize("record", RECORDS, ids=lambda r: r.__name__)
def test_a_record_is_made_and_read_as_its_dataclass(record: type[Record]) -> None:
    twin = _twin(record)
    assert _signature(record) == _signature(twin)
    values = _values(record, "a")
    made, expected = record(**values), twin(**values)
    assert repr(made) == repr(expected)
    assert made.as_dict() == dataclasses.asdict(expected)
    positional = record(*values.values())
    assert positional == made and hash(positional) == hash(made)


@pytest.mark.parametrize("record", RECORDS, ids=lambda r: r.__name__)
def test_a_record_compares_and_hashes_as_its_dataclass(record: type[Record]) -> None:
    twin = _twin(record)
    a, b = _values(record, "a"), _values(record, "b")
    assert record(**a) == record(**a)
    assert record(**a) != record(**b)
    assert hash(record(**a)) == hash(twin(**a))
    assert record(**a) != twin(**a)  # another class: never equal, as dataclasses
    assert record(**a) != tuple(a.values())
    last = list(a)[-1]
    assert record(**a) != record(**{**a, last: "other"})


@pytest.mark.parametrize("record", RECORDS, ids=lambda r: r.__name__)
def test_a_record_is_frozen_but_copied_and_replaced(record: type[Record]) -> None:
    values = _values(record, "a")
    made = record(**values)
    first = next(iter(values))
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(made, first, "changed")
    with pytest.raises(dataclasses.FrozenInstanceError):
        delattr(made, first)
    with pytest.raises(dataclasses.FrozenInstanceError):
        made.unknown = 1
    assert getattr(made, first) == values[first]
    replaced = made.replace(**{first: "changed"})
    expected = dataclasses.replace(_twin(record)(**values), **{first: "changed"})
    assert repr(replaced) == repr(expected)
    assert getattr(made, first) == values[first]
    with pytest.raises(TypeError):
        made.replace(unknown=1)
    assert pickle.loads(pickle.dumps(made)) == made
    assert copy.deepcopy(made) == made and copy.copy(made) == made


def test_a_record_holding_a_dict_is_unhashable_as_its_dataclass() -> None:
    leaf = tree.TreeLeaf("/a", "a", example_args={"x": 1})
    with pytest.raises(TypeError):
        hash(leaf)
    assert leaf == tree.TreeLeaf("/a", "a", example_args={"x": 1})
