"""JSON Schema's integer: a number with no fractional part, so ``3``, ``3.0``, ``-0.0``
and ``1e2`` are integers, while ``3.5``, ``"3"`` and ``True`` are not.

The generated models type every ``"type": "integer"`` with :data:`StrictInt`
(datamodel-code-generator spells the name, mcigen points its import here): as strict
as pydantic's (no strings, no booleans) but taking whole floats, as their int. The
tool gets that int too: :func:`with_whole_ints` puts it into the input.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, RootModel, Strict


def _whole_float_as_int(value: Any) -> Any:
    return int(value) if type(value) is float and value.is_integer() else value


StrictInt = Annotated[int, Strict(), BeforeValidator(_whole_float_as_int)]

UNION_LABEL = f"function-before[{_whole_float_as_int.__name__}(), int]"
"""What pydantic calls :data:`StrictInt` as a member of a union, in the location of
an error; ``int`` is what it called pydantic's, and what messages say."""


def with_whole_ints(raw: Mapping[str, Any], validated: BaseModel) -> Mapping[str, Any]:
    """``raw`` with each whole float that its validated model holds as an int (a
    :data:`StrictInt`, or a member of an integer ``enum``) replaced by that int;
    ``raw`` itself when there is none. ``raw`` is never changed in place."""
    if not _holds_whole_float(raw):  # cheaper than the walk, and the usual answer
        return raw
    replaced: Mapping[str, Any] = _replaced(raw, validated)
    return replaced


def _holds_whole_float(node: Any) -> bool:
    if type(node) is float:
        return node.is_integer()
    if isinstance(node, Mapping):
        return any(map(_holds_whole_float, node.values()))
    if isinstance(node, list):
        return any(map(_holds_whole_float, node))
    return False


def _replaced(raw: Any, validated: Any) -> Any:
    if isinstance(validated, RootModel):
        validated = validated.root
    if type(raw) is float:
        whole = type(validated) is int and validated == raw
        return validated if whole else raw
    if isinstance(raw, Mapping):
        by_key = _by_key(validated)
        changed = {
            key: new
            for key, value in raw.items()
            if key in by_key and (new := _replaced(value, by_key[key])) is not value
        }
        return {**raw, **changed} if changed else raw
    if isinstance(raw, list) and isinstance(validated, list | tuple):
        items = [_replaced(r, v) for r, v in zip(raw, validated, strict=False)]
        if all(new is old for new, old in zip(items, raw, strict=False)):
            return raw
        return items + raw[len(items) :]
    return raw


def _by_key(validated: Any) -> Mapping[str, Any]:
    """The validated values of a mapping by the keys the input used."""
    if isinstance(validated, BaseModel):
        fields = {
            field.alias or name: getattr(validated, name)
            for name, field in type(validated).model_fields.items()
            if name in validated.model_fields_set
        }
        return {**(validated.model_extra or {}), **fields}
    return validated if isinstance(validated, Mapping) else {}
