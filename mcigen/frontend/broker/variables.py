"""``${NAME}`` in a broker config's strings, as pyMCPBroker's spec has it: every
string value of the config reads the environment variable NAME, and one that is
not set stops the config from loading.

When it is read depends on the string. A source's ``command`` starts a program
and often carries a token: it keeps its references and reads them when the
server starts (``command``), so no value of it is written into the package.
Every other string (paths, summaries, descriptions, filters, aliases, example
args) is what the package *is*: the tree and texts a model reads, the tools it
holds. Those are substituted when the package is built, from the build's
environment; ``mcigen broker`` builds at start (through the build cache, keyed
by the values too), so for it every variable is read at start, as pyMCPBroker
reads them. Object keys (the server's own tool names) are names, not
substituted.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from ...diagnostics import quoted
from ..context import At, Context

VARIABLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
SOURCE, COMMAND = "source", "command"


def substituted(ctx: Context, value: object, at: At, env: Mapping[str, str]) -> object:
    """``value`` (the config) with ``${NAME}`` replaced in every string but a
    source's command; an error at each string naming a variable that is not set
    (the string kept as written)."""
    if isinstance(value, str):
        return _text(ctx, value, at, env)
    if isinstance(value, list):
        return [substituted(ctx, item, at.item(i), env) for i, item in enumerate(value)]
    if isinstance(value, dict):
        return {
            key: (
                _source(ctx, item, at.entry(key), env)
                if key == SOURCE and isinstance(item, dict)
                else substituted(ctx, item, at.entry(key), env)
            )
            for key, item in value.items()
        }
    return value


def _source(
    ctx: Context, source: dict[str, object], at: At, env: Mapping[str, str]
) -> dict[str, object]:
    return {
        key: (
            item
            if key == COMMAND  # read at run time: see the module's docstring
            else substituted(ctx, item, at.entry(key), env)
        )
        for key, item in source.items()
    }


def _text(ctx: Context, text: str, at: At, env: Mapping[str, str]) -> str:
    unset = [name for name in dict.fromkeys(VARIABLE.findall(text)) if name not in env]
    for name in unset:
        ctx.error(
            at,
            f"the environment variable {name} is not set, and {quoted(at.label)} reads it "
            "when the package is built (only a source's 'command' reads its "
            "variables when the server starts)",
        )
    if unset:
        return text
    return VARIABLE.sub(lambda match: env[match[1]], text)
