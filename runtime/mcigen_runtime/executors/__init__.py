"""The executors: what runs a tool, one folder per kind (:mod:`.http`, :mod:`.cli`,
:mod:`.mcp`; the kinds never import each other), the environment a started process
gets (:mod:`.child_env`), every command the process runs and how they are stopped
(:mod:`.running`), and sequences of tools (:mod:`.sequence`). The SDKs an
executor needs load with its first call."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from typing import Any


def lazy_face(face: str, homes: Mapping[str, str]) -> Callable[[str], Any]:
    """The module ``__getattr__`` of the executor face ``face``: each name of
    ``homes`` imported from its module there (relative to ``face``) when first
    asked for, then kept in the face. Generated code reaches a face's names as its
    attributes, so a tool module that names a kind's face loads none of that kind's
    modules until one of its calls runs (a text call loads no cli, http or MCP code).
    """
    namespace = sys.modules[face].__dict__

    def __getattr__(name: str) -> Any:
        home = homes.get(name)
        if home is None:
            raise AttributeError(f"module {face!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(home, face), name)
        namespace[name] = value
        return value

    return __getattr__
