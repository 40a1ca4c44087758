"""mcigen: compile MCI schemas into typed Python packages.

``from mcigen import MCIClient`` is mci-py's client over a package compiled on
first use (see :mod:`mcigen.mci_client`); every other name ``from mcipy import``
offers is here too (:mod:`mcigen.mcipy_names`). They are imported only when
asked for, so the compiler's command line does not load them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.7.0"

if TYPE_CHECKING:
    from .mcipy_names import *  # noqa: F403

MCIPY_NAMES = (
    "Annotations",
    "ApiKeyAuth",
    "AudioContent",
    "BasicAuth",
    "BearerAuth",
    "CLIExecutionConfig",
    "ClientCfg",
    "ExecutionResult",
    "ExecutionResultContent",
    "ExecutionType",
    "FileExecutionConfig",
    "FlagConfig",
    "HTTPBodyConfig",
    "HTTPExecutionConfig",
    "ImageContent",
    "LiteMcpClient",
    "MCIClient",
    "MCIClientError",
    "MCISchema",
    "Metadata",
    "OAuth2Auth",
    "RetryConfig",
    "SchemaParser",
    "SchemaParserError",
    "ServerCfg",
    "SseCfg",
    "StdioCfg",
    "TextContent",
    "TextExecutionConfig",
    "Tool",
    "ToolManager",
    "ToolManagerError",
)
"""What mci-py 1.2's ``mcipy.__all__`` names."""

__all__ = [*MCIPY_NAMES, "__version__"]


def __getattr__(name: str) -> Any:
    if name == "MCIClient":  # what most scripts import alone: not mcipy's other names
        from .mci_client import MCIClient

        return MCIClient
    if name in MCIPY_NAMES:
        from . import mcipy_names

        return getattr(mcipy_names, name)
    raise AttributeError(f"module 'mcigen' has no attribute {name!r}")
