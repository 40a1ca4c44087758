"""mcigen: compile MCI schemas into typed Python packages.

``from mcigen import MCIClient`` is mci-py's client over a package compiled on
first use (see :mod:`mcigen.mci_client`); it is imported only when asked for, so
the compiler's command line does not load it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.3.0"

if TYPE_CHECKING:
    from .mci_client import MCIClient, MCIClientError

__all__ = ["MCIClient", "MCIClientError", "__version__"]


def __getattr__(name: str) -> Any:
    if name in ("MCIClient", "MCIClientError"):
        from . import mci_client

        return getattr(mci_client, name)
    raise AttributeError(f"module 'mcigen' has no attribute {name!r}")
