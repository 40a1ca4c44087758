"""Frozen records: the manifest's and the tree's value classes.

They behave as ``@dataclass(frozen=True)`` classes do (equal when of the same class
with equal fields, hashed as the tuple of their fields, printed as
``Name(field=value, ...)``, immutable, pickled and copied), but their methods are
written once, here: a dataclass compiles its own when it is made, ~8 M
instructions for a class of 16 fields, and a cached client's start made nine of
them (a tenth of what it adds to a package's import + call).

A record's fields are its class's annotations, in order; its ``__init__`` takes
them in that order, with the class's defaults, and stores them with
:meth:`Record._set` (``tests/test_records.py`` holds every record to the dataclass
made of the same annotations).
"""

from __future__ import annotations

from dataclasses import FrozenInstanceError
from typing import Any, ClassVar, Self


class Record:
    """The base of a frozen record class."""

    _fields: ClassVar[tuple[str, ...]] = ()
    """The fields' names, in order: the class's own annotations."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._fields = tuple(cls.__dict__.get("__annotations__", {}))

    def _set(self, **fields: Any) -> None:
        """Store ``fields`` (by ``__init__``: past the frozen ``__setattr__``)."""
        self.__dict__.update(fields)

    def _values(self) -> tuple[Any, ...]:
        return tuple([getattr(self, name) for name in self._fields])

    def __eq__(self, other: object) -> bool:
        if other.__class__ is self.__class__:
            return self._values() == other._values()
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._values())

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in self._fields)
        return f"{self.__class__.__qualname__}({shown})"

    def __setattr__(self, name: str, value: Any) -> None:
        raise FrozenInstanceError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise FrozenInstanceError(f"cannot delete field {name!r}")

    def replace(self, **changes: Any) -> Self:
        """A copy with ``changes`` (``dataclasses.replace``)."""
        return self.__class__(**{**self.as_dict(), **changes})

    def as_dict(self) -> dict[str, Any]:
        """The fields by name, in order (not recursing into records)."""
        return {name: getattr(self, name) for name in self._fields}
