"""The executors: what runs a tool, one folder per kind (:mod:`.http`, :mod:`.cli`,
:mod:`.mcp`; the kinds never import each other), the environment a started process
gets (:mod:`.child_env`), every command the process runs and how they are stopped
(:mod:`.running`), and sequences of tools (:mod:`.sequence`). The SDKs an
executor needs load with its first call."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Collection, Mapping
from typing import Any


def lazy_face(
    face: str, homes: Mapping[str, str], apart: Collection[str] = ()
) -> Callable[[str], Any]:
    """The module ``__getattr__`` of the executor face ``face``, whose names
    (``homes``: each name and the module holding it, relative to ``face``) load when
    one is first asked for. Generated code reaches a face's names as its attributes,
    so a tool module that names a kind's face loads none of that kind's modules
    until one of its calls runs (a text call loads no cli, http, file or MCP code).

    The first name asked for loads its module and every module of ``homes`` not
    ``apart`` (what a call of the kind loads anyway), and their names stay in the
    face. Once they all are there the face drops its ``__getattr__``: Python looks an
    attribute up faster (specialised) in a module without one."""
    namespace = sys.modules[face].__dict__

    def load(modules: set[str]) -> None:
        for module in sorted(modules):
            loaded = importlib.import_module(module, face)
            namespace.update(
                (name, getattr(loaded, name))
                for name, home in homes.items()
                if home == module
            )
        if namespace.keys() >= homes.keys():
            namespace.pop("__getattr__", None)

    def __getattr__(name: str) -> Any:
        home = homes.get(name)
        if home is None:
            raise AttributeError(f"module {face!r} has no attribute {name!r}")
        load({home, *(module for module in homes.values() if module not in apart)})
        return namespace[name]

    return __getattr__
