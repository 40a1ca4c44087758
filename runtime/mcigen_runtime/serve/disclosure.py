"""Ahma's progressive disclosure, for a served package built from Ahma's own tool
files (see :mod:`.bundles`): their tools are left out of ``tools/list`` until
the client reveals their bundle with ``activate_tools {action: "reveal", bundle:
"rust,git"}``; ``{action: "list"}`` lists the package's bundles. A reveal that
lists more tools is followed by ``notifications/tools/list_changed``. Unlisted
tools stay callable, as in Ahma.

Each client (see ``operations.Caller``) reveals for itself. The server's
``MCIGEN_PROGRESSIVE_DISCLOSURE_OFF=1`` (as Ahma's ``AHMA_PROGRESSIVE_DISCLOSURE_OFF``)
lists every tool and offers no ``activate_tools``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from ..manifest import ToolEntry
from ..results import ToolResult, text_result
from .bundles import ACTIVATE_TOOLS, BUNDLES
from .operation_tools import InvalidParams
from .operations import Caller

OFF = "MCIGEN_PROGRESSIVE_DISCLOSURE_OFF"

KEEP_CALLERS = 1000
"""How many clients' reveals a server remembers (the newest): an HTTP client
forgotten sees its bundles unlisted again."""


def disclosure_off(env: Mapping[str, str]) -> bool:
    """Whether ``env`` turns progressive disclosure off (Ahma's flag values)."""
    return env.get(OFF, "").strip().lower() in ("1", "true", "yes", "on")


class Disclosure:
    """Which bundles each client has revealed, over a package's tools."""

    def __init__(self, tools: Sequence[ToolEntry]) -> None:
        present = [tool.bundle for tool in tools if tool.bundle is not None]
        self.bundles = [bundle for bundle in BUNDLES if bundle.name in present]
        """The package's bundles, in Ahma's order."""
        self._counts = {b.name: present.count(b.name) for b in self.bundles}
        self._revealed: dict[Caller, set[str]] = {}

    def revealed(self, caller: Caller) -> frozenset[str]:
        return frozenset(self._revealed.get(caller, ()))

    def definition(self) -> dict[str, Any]:
        """``activate_tools`` as a ``tools/list`` entry."""
        lines = [
            "Reveal more tools (they are not listed until you do). The bundles:",
            *(f"- '{bundle.name}': {bundle.hint}" for bundle in self.bundles),
            "Call with action 'list' for details, or 'reveal' with bundle names.",
        ]
        return {
            "name": ACTIVATE_TOOLS,
            "title": ACTIVATE_TOOLS,
            "description": "\n".join(lines),
            "inputSchema": {
                "type": "object",
                "properties": {
                    "action": {
                        "type": "string",
                        "description": "'list' shows the bundles, 'reveal' lists "
                        "a bundle's tools",
                        "enum": ["list", "reveal"],
                    },
                    "bundle": {
                        "type": "string",
                        "description": "The bundle to reveal (for 'reveal'); "
                        "several separated by commas",
                    },
                },
                "required": ["action"],
            },
        }

    def call(
        self, arguments: Mapping[str, Any], caller: Caller
    ) -> tuple[ToolResult, bool]:
        """Answer ``activate_tools``; with it, whether the caller's listing
        changed. Raises :class:`InvalidParams` as Ahma does."""
        action = arguments.get("action")
        if not isinstance(action, str):
            action = "list"
        if action == "list":
            return self._list(caller), False
        if action != "reveal":
            raise InvalidParams(
                f"Unknown action '{action}'. Valid actions: 'list', 'reveal'"
            )
        names = arguments.get("bundle")
        if not isinstance(names, str):
            raise InvalidParams(
                "The 'bundle' parameter is required for the 'reveal' action"
            )
        return self._reveal([name.strip() for name in names.split(",")], caller)

    def _list(self, caller: Caller) -> ToolResult:
        revealed = self.revealed(caller)
        entries = [
            {
                "bundle": bundle.name,
                "description": bundle.description,
                "revealed": bundle.name in revealed,
                "tools": self._counts[bundle.name],
            }
            for bundle in self.bundles
        ]
        return text_result(
            "Available tool bundles (use `activate_tools reveal <bundle>` to "
            f"activate):\n{json.dumps(entries, indent=2, ensure_ascii=False)}"
        )

    def _reveal(self, names: list[str], caller: Caller) -> tuple[ToolResult, bool]:
        revealed = self._revealed.pop(caller, set())
        self._revealed[caller] = revealed  # the newest caller last
        while len(self._revealed) > KEEP_CALLERS:
            del self._revealed[next(iter(self._revealed))]
        new: list[str] = []
        already: list[str] = []
        unavailable: list[str] = []
        known = {bundle.name for bundle in BUNDLES}
        for name in names:
            if name in self._counts:
                (already if name in revealed else new).append(name)
                revealed.add(name)
            elif name in known:
                unavailable.append(f"{name} (not in this package)")
            else:
                unavailable.append(f"{name} (unknown bundle)")
        parts = [
            f"{label}: {', '.join(found)}"
            for label, found in (
                ("Revealed", new),
                ("Already revealed", already),
                ("Not available", unavailable),
            )
            if found
        ]
        return text_result("\n".join(parts)), bool(new)
