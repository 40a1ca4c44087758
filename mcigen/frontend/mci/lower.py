"""Lower a validated document into ``ir.Schema``.

Runs only on documents without errors but in the tools it skips, so shapes are
trusted here; null optional
fields count as absent, as in validation.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

from mcigen_runtime.templating.syntax import Template

from ... import ir
from ..pointers import child_pointer
from ..source import SourceDocument
from .rules import (
    DEFAULT_RETRY_ATTEMPTS,
    DEFAULT_RETRY_BACKOFF_MS,
    DEFAULT_TIMEOUT_MS,
    is_http_server,
)

JsonObject = dict[str, Any]


_TOOLSET_FILE_FIELDS = ("schemaVersion", "metadata", "tools", "expiresAt")
"""What a toolset file holds that is read: the rest is ignored, as in mci-py."""


def lower_schema(
    doc: SourceDocument,
    templates: Mapping[str, Template],
    source: str,
    toolset_file: bool = False,
    skipped_tools: Collection[int] = (),
) -> ir.Schema:
    """The schema, but for the tools at ``skipped_tools`` (which have errors)."""
    return _Lowering(doc, templates).schema(source, toolset_file, skipped_tools)


def _present(obj: JsonObject) -> JsonObject:
    """``obj`` without null members."""
    return {key: value for key, value in obj.items() if value is not None}


class _Lowering:
    def __init__(self, doc: SourceDocument, templates: Mapping[str, Template]) -> None:
        self._doc = doc
        self._templates = templates

    def schema(
        self, source: str, toolset_file: bool, skipped_tools: Collection[int]
    ) -> ir.Schema:
        assert isinstance(self._doc.data, dict)
        root = _present(self._doc.data)
        if toolset_file:
            root = {key: root[key] for key in _TOOLSET_FILE_FIELDS if key in root}
        allow_list = root.get("directoryAllowList")
        return ir.Schema(
            source=source,
            schema_version=root["schemaVersion"],
            metadata=_present(root.get("metadata", {})),
            tools=tuple(
                self.tool(tool, child_pointer("/tools", index))
                for index, tool in enumerate(root.get("tools", []))
                if index not in skipped_tools
            ),
            toolsets=tuple(
                self.toolset(ref, child_pointer("/toolsets", index))
                for index, ref in enumerate(root.get("toolsets", []))
            ),
            mcp_servers=tuple(
                self.mcp_server(name, config)
                for name, config in root.get("mcp_servers", {}).items()
            ),
            library_dir=root.get("libraryDir", ir.DEFAULT_LIBRARY_DIR),
            enable_any_paths=root.get("enableAnyPaths", False),
            directory_allow_list=tuple(allow_list or ()),
            expires_at=root.get("expiresAt"),
        )

    def tool(self, raw: JsonObject, pointer: str) -> ir.Tool:
        tool = _present(raw)
        allow_list = tool.get("directoryAllowList")
        is_mcp = tool["execution"]["type"] == "mcp"
        return ir.Tool(
            name=tool["name"],
            description=tool.get("description"),
            annotations=_present(tool.get("annotations", {})),
            tags=tuple(tool.get("tags", ())),
            input_schema=tool.get("inputSchema"),
            execution=self.execution(
                _present(tool["execution"]), child_pointer(pointer, "execution")
            ),
            disabled=tool.get("disabled", False),
            path_policy=ir.PathPolicy(
                enable_any_paths=tool.get("enableAnyPaths"),
                directory_allow_list=None if allow_list is None else tuple(allow_list),
            ),
            location=self._doc.location(pointer),
            output_schema=tool.get("outputSchema") if is_mcp else None,
        )

    def toolset(self, ref: str | JsonObject, pointer: str) -> ir.ToolsetRef:
        location = self._doc.location(pointer)
        if isinstance(ref, str):
            return ir.ToolsetRef(ref, None, None, location, location)
        return ir.ToolsetRef(
            ref["name"],
            ref.get("filter"),
            ref.get("filterValue"),
            location,
            self._doc.location(child_pointer(pointer, "name")),
        )

    def mcp_server(self, name: str, config: JsonObject) -> ir.McpServer:
        pointer = child_pointer("/mcp_servers", name)
        if "type" not in config and is_http_server(config):
            config = {"type": "http", **config}
        return ir.McpServer(
            name,
            config,
            self._doc.location(pointer),
            self._doc.key_location(pointer),
        )

    def execution(self, config: JsonObject, pointer: str) -> ir.Execution:
        kind = config["type"]
        if kind == "text":
            return ir.TextExecution(self.templated(config, "text", pointer))
        if kind == "http":
            return self.http(config, pointer)
        if kind == "cli":
            return self.cli(config)
        if kind == "file":
            return ir.FileExecution(
                path=self.templated(config, "path", pointer),
                enable_templating=config.get("enableTemplating", True),
            )
        return ir.McpExecution(
            config["serverName"],
            config["toolName"],
            task_support=config.get("taskSupport") or "forbidden",
        )

    def http(self, config: JsonObject, pointer: str) -> ir.HttpExecution:
        auth = config.get("auth")
        body = config.get("body") or {}
        retry_attempts, retry_backoff_ms = _retry_settings(config.get("retries"))
        return ir.HttpExecution(
            method=config.get("method", "GET").upper(),
            url=self.templated(config, "url", pointer),
            headers=config.get("headers", {}),
            params=config.get("params", {}),
            auth=None if auth is None else _auth(auth),
            body_type=body.get("type"),
            body_content=body.get("content"),
            timeout_ms=config.get("timeout_ms", DEFAULT_TIMEOUT_MS),
            retry_attempts=retry_attempts,
            retry_backoff_ms=retry_backoff_ms,
        )

    def cli(self, config: JsonObject) -> ir.CliExecution:
        flags = config.get("flags", {})
        return ir.CliExecution(
            command=config["command"],
            args=tuple(config.get("args", ())),
            flags=tuple(
                ir.CliFlag(name=name, source=flag["from"], kind=flag["type"])
                for name, flag in flags.items()
            ),
            cwd=config.get("cwd"),
            timeout_ms=config.get("timeout_ms", DEFAULT_TIMEOUT_MS),
            allow_option_like_args=config.get("allowOptionLikeArgs", False),
            pass_env=_pass_env(config.get("passEnv")),
        )

    def templated(
        self, config: JsonObject, key: str, parent: str
    ) -> ir.TemplatedString:
        pointer = child_pointer(parent, key)
        return ir.TemplatedString(
            raw=config[key],
            template=self._templates[pointer],
            location=self._doc.location(pointer),
        )


_AUTH_KEYS = {
    "apiKey": ("in", "name", "value"),
    "bearer": ("token",),
    "basic": ("username", "password"),
    "oauth2": ("flow", "tokenUrl", "clientId", "clientSecret", "scopes"),
}
"""The fields of each kind of auth; any other key is ignored, as mci-py's models
ignore it (a key is never a keyword of generated code)."""


def _auth(auth: JsonObject) -> ir.HttpAuth:
    kind = auth["type"]
    known = _AUTH_KEYS[kind]
    fields = {key: value for key, value in _present(auth).items() if key in known}
    return ir.HttpAuth(kind=kind, fields=fields)


def _retry_settings(retries: JsonObject | None) -> tuple[int | None, int | None]:
    """(attempts, backoff) with the MCI defaults when ``retries`` is given at all."""
    if retries is None:
        return None, None
    present = _present(retries)
    return (
        present.get("attempts", DEFAULT_RETRY_ATTEMPTS),
        present.get("backoff_ms", DEFAULT_RETRY_BACKOFF_MS),
    )


def _pass_env(value: object) -> bool | tuple[str, ...]:
    """``passEnv``: ``true`` (all), or the names, sorted and once each."""
    if isinstance(value, list):
        return tuple(sorted({str(name) for name in value}))
    return value is True
