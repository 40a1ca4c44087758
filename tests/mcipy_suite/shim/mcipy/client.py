"""``mcipy.client``: the client and its exception."""

from mcigen import MCIClient, MCIClientError

__all__ = ["MCIClient", "MCIClientError"]
