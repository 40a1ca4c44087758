"""The members of a large enum, read from the generated module's JSON data file
on first use (they are data, not code: see mcigen's ``backend/enum_data.py``)."""

from __future__ import annotations

import functools
import json
import os
from typing import Any, TypeVar

_Value = TypeVar("_Value")


class EnumMembers:
    """Membership in one large enum of the module ``module_file``, by its ``name``.

    ``value in members`` is the input guard's test; calling it is the input model's
    validator, which returns a member and refuses anything else."""

    def __init__(self, module_file: str, name: str) -> None:
        self._data_file = os.path.splitext(module_file)[0] + ".enums.json"
        self._name = name
        self._members: frozenset[Any] | None = None

    def __contains__(self, value: object) -> bool:
        if self._members is None:
            self._members = frozenset(_enums_in(self._data_file)[self._name])
        return value in self._members

    def __call__(self, value: _Value) -> _Value:
        if value not in self:
            raise ValueError(
                "Input should be one of the values the schema's enum lists"
            )
        return value


@functools.cache
def _enums_in(data_file: str) -> dict[str, list[Any]]:
    with open(data_file, encoding="utf-8") as data:
        enums: dict[str, list[Any]] = json.load(data)
    return enums
