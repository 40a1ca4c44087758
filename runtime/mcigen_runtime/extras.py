"""The runtime's optional dependencies (its extras), checked where they are first
needed: a missing or wrong one is one line that says what to install, not a
``ModuleNotFoundError`` from deep inside a call (``mcp_types`` is what an MCP SDK 1.x
lacks)."""

from __future__ import annotations

import importlib.util

_EXTRAS = {
    "http": ("httpx", "httpx", "http tools need httpx", "httpx>=0.27"),
    "mcp": (
        "mcp_types",
        "mcp",
        "MCP tools and serving over MCP need the MCP SDK 2",
        "mcp>=2.3,<3",
    ),
    "redis": (
        "saq",
        "saq",
        "operations shared through MCIGEN_OPERATIONS_URL need SAQ and redis",
        "saq[redis]>=0.26,<0.27",
    ),
    "otel": (
        "opentelemetry.sdk",
        "opentelemetry-sdk",
        "OpenTelemetry (the OTEL_* variables) needs its SDK",
        "opentelemetry-exporter-otlp-proto-http>=1.28",  # and the SDK
    ),
    "anthropic": (
        "anthropic",
        "anthropic",
        "the Anthropic adapter needs the Anthropic SDK",
        "anthropic>=2",
    ),
    "pydantic-ai": (
        "pydantic_ai",
        "pydantic-ai-slim",
        "the PydanticAI adapter needs PydanticAI",
        "pydantic-ai-slim>=2",
    ),
    "langchain": (
        "langchain_core",
        "langchain-core",
        "the LangChain adapter needs LangChain",
        "langchain-core>=1",
    ),
    "openai-agents": (
        "agents",
        "openai-agents",
        "the OpenAI Agents adapter needs the OpenAI Agents SDK",
        "openai-agents>=0.24",
    ),
}
"""Extra -> (a module it provides, its distribution, what needs it, its requirement
as ``runtime/pyproject.toml`` declares it)."""

_present: set[str] = set()


class MissingExtraError(ImportError):
    """An optional dependency of the runtime is missing or of the wrong version."""


def require_extra(extra: str) -> None:
    """Raise :class:`MissingExtraError` unless what ``extra`` installs is importable."""
    if extra in _present:
        return
    try:
        found = importlib.util.find_spec(_EXTRAS[extra][0])
    except ModuleNotFoundError:  # its parent package is missing too
        found = None
    if found is None:
        raise missing_extra(extra)
    _present.add(extra)


def missing_extra(extra: str) -> MissingExtraError:
    from importlib import metadata  # here: costly to import, needed only to report

    _, distribution, needs, requirement = _EXTRAS[extra]
    try:
        found = f" ({distribution} {metadata.version(distribution)} is installed)"
    except metadata.PackageNotFoundError:
        found = ""
    return MissingExtraError(
        f"{needs}{found}: pip install 'mcigen-runtime[{extra}]' "
        f"(or '{requirement}' for a package built with --vendor-runtime)"
    )


def extra_requirements() -> dict[str, str]:
    """Extra -> the requirement it adds, for the tests that keep this in step with
    ``runtime/pyproject.toml``."""
    return {extra: needs[3] for extra, needs in _EXTRAS.items()}
