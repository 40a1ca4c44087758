"""The example arguments of each leaf of the broker's tree, settled at build time
and written with the tree into the manifest, where ``meta_desc`` reads them.

A leaf keeps the ``example_args`` a broker config gives it (checked against the
tool's schema where the config's sources are planned). Any other leaf gets the
arguments :func:`.example_args.example_args` makes from the tool's inputSchema, if
a validator of the schema's draft accepts them; a leaf left without any has no
``example_args`` in the manifest, and ``meta_desc`` shows none for its tool.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .. import ir
from .example_args import example_args
from .schema_fit import EMPTY_SCHEMA, misfit


def with_example_args(tree: ir.Tree, tools: Sequence[ir.Tool]) -> ir.Tree:
    """``tree`` with the example arguments of every leaf, ``tools`` its tools."""
    schemas = {tool.name: tool.input_schema or EMPTY_SCHEMA for tool in tools}
    leaves = tuple(
        (
            leaf
            if leaf.example_args is not None
            else leaf.replace(example_args=_fitting_example(schemas[leaf.tool]))
        )
        for leaf in tree.leaves
    )
    return ir.Tree(tree.nodes, leaves)


def _fitting_example(schema: dict[str, Any]) -> dict[str, Any] | None:
    example = example_args(schema)
    if example is None or misfit(example, schema) is not None:
        return None
    return example
