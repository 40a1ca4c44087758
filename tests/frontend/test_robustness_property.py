"""Property: load_schema never raises, and lowers whatever it does not reject."""

from __future__ import annotations

import copy
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mcigen.frontend.mci import load_schema

from .support import FORMATS, render
from .test_lower import FULL_SCHEMA

JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-3, 40000)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.sampled_from(
        ["", "GET", "post", "http", "text", "{{props.x}}", "{{a b}}", "x"]
    ),
    lambda inner: st.lists(inner, max_size=3)
    | st.dictionaries(
        st.sampled_from(["type", "name", "url", "text", "content", "filter", "zz"]),
        inner,
        max_size=3,
    ),
    max_leaves=8,
)


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    paths = [prefix]
    if isinstance(value, dict):
        for key, item in value.items():
            paths += _paths(item, (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            paths += _paths(item, (*prefix, index))
    return paths


def _replace(document: Any, path: tuple[Any, ...], new: Any) -> Any:
    if not path:
        return new
    result = copy.deepcopy(document)
    parent = result
    for step in path[:-1]:
        parent = parent[step]
    parent[path[-1]] = new
    return result


def _load(text: str, suffix: str) -> None:
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / f"s{suffix}"
        path.write_text(text, encoding="utf-8")
        for toolset_file in (False, True):
            schema, diagnostics = load_schema(path, toolset_file=toolset_file)
            assert (schema is None) == diagnostics.has_errors


ALL_PATHS = _paths(FULL_SCHEMA)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    path=st.sampled_from(ALL_PATHS),
    new=JSON_VALUES,
    fmt=st.sampled_from(FORMATS),
)
def test_any_mutation_of_a_valid_schema_loads_without_raising(
    path: tuple[Any, ...], new: Any, fmt: str
) -> None:
    _load(render(_replace(FULL_SCHEMA, path, new), fmt), f".{fmt}")


@settings(max_examples=200, deadline=None)
@given(text=st.text(st.sampled_from(list("ab:-[]{}'\"|>&*!#\n\t @{}.%?,"))))
def test_any_yaml_text_loads_without_raising(text: str) -> None:
    _load(text, ".yaml")
