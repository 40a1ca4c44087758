"""The MCP servers a group's tools call, as the group module resolves them.

A server's settings stay templates in the generated code: each server becomes a
function from the run-time environment to ``McpServerParams``, so nothing from the
build environment is written into the package.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from mcigen_runtime.templating.compiler import CompiledText, compile_text
from mcigen_runtime.templating.syntax import Template

from ... import ir
from ...planner.names import module_name
from ...setting_templates import setting_template
from ...unique_names import unique
from ..pysource import Code, code, docstring, ident, literal

ENV_ONLY = frozenset({"env"})


@dataclass
class McpServerView:
    """The generated function that resolves one server's settings."""

    function: Code
    doc: Code
    """Its docstring, escaped whole: quotes opening the server's name, escaped
    alone, would meet the quote before them and close the docstring."""
    name: Code
    """The server's name, as a Python literal (its key in ``SERVERS``)."""
    statements: list[Code]
    arguments: list[Code]
    needs_context: bool
    helpers: set[str] = field(default_factory=set)

    @property
    def can_fail(self) -> bool:
        """Whether resolving may raise (a placeholder without a value)."""
        return bool(self.statements) or self.needs_context


def server_functions(servers: Iterable[ir.McpServer]) -> dict[str, str]:
    """A private function name per server, distinct even when names differ only in
    characters Python names cannot hold."""
    taken: set[str] = set()
    return {
        server.name: unique(f"_mcp_server_{module_name(server.name)}", taken)
        for server in sorted(servers, key=lambda s: s.name)
    }


def server_view(server: ir.McpServer, function: str) -> McpServerView:
    config = server.config
    compiled: list[CompiledText] = []

    def value(text: str | Template, prefix: str) -> str:
        made = compile_text(setting_template(text), frozenset(), prefix, ENV_ONLY)
        compiled.append(made)
        return made.expression

    def pairs(key: str) -> str:
        mapping: dict[str, str] = config.get(key) or {}
        items = [
            f"({literal(entry)}, {value(text, f'{key}_{i}')})"
            for i, (entry, text) in enumerate(mapping.items())
        ]
        return _tuple(items)

    arguments = [code(f"name={literal(server.name)}")]
    if config.get("type") == "http":
        arguments += [
            code(f"url={value(config['url'], 'url')}"),
            code(f"headers={pairs('headers')}"),
        ]
    else:
        args = [
            value(arg, f"arg_{i}") for i, arg in enumerate(config.get("args") or ())
        ]
        arguments += [
            code(f"command={value(config['command'], 'command')}"),
            code(f"args={_tuple(args)}"),
            code(f"env={pairs('env')}"),
        ]
    settings = config.get("config")
    timeout_ms = settings.get("timeout_ms") if isinstance(settings, dict) else None
    if isinstance(timeout_ms, int):
        arguments.append(code(f"call_timeout={literal(timeout_ms / 1000)}"))
    return McpServerView(
        ident(function),
        docstring(f'How to reach MCP server "{server.name}", resolved from ``env``.'),
        literal(server.name),
        [code(statement) for made in compiled for statement in made.statements],
        arguments,
        any(made.needs_context for made in compiled),
        {helper for made in compiled for helper in made.helpers},
    )


def _tuple(items: list[str]) -> str:
    if len(items) == 1:
        return f"({items[0]},)"
    return "(" + ", ".join(items) + ")"
