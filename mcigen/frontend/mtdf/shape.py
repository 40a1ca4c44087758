"""Every field of a tool file has a known name and the type Ahma's structs give it.

Ahma (serde) stops at the first bad key; this reports every one of them.
"""

from __future__ import annotations

from ...diagnostics import did_you_mean, quoted
from ..context import At, Context, show, type_name
from ..pointers import child_pointer
from .fields import TOOL, Field, Kind, ListOf, MapOf, Scalar, Struct, Variants


def check_shape(ctx: Context) -> None:
    for duplicate in ctx.doc.duplicate_keys:
        ctx.error(
            At(duplicate.pointer, duplicate.name),
            f"duplicate field {quoted(duplicate.name)}",
            on_key=True,
        )
    data = ctx.doc.data
    if not isinstance(data, dict):
        ctx.error(
            At("", ""),
            f"an MTDF tool file holds one JSON object, not {type_name(data)}",
        )
        return
    _check_struct(ctx, At("", ""), data, TOOL)


def _check_value(ctx: Context, at: At, value: object, field: Field) -> None:
    kind = field.kind
    if value is None and field.nullable:
        return
    if isinstance(kind, Scalar):
        if not kind.accepts(value):
            _wrong(ctx, at, kind, value)
    elif isinstance(kind, Variants):
        if value not in kind.names:
            _wrong(ctx, at, kind, value)
    elif isinstance(kind, ListOf):
        if not isinstance(value, list):
            _wrong(ctx, at, kind, value)
            return
        for index, item in enumerate(value):
            _check_value(ctx, _item(at, index), item, Field(kind.item, nullable=False))
    elif isinstance(value, dict):
        if isinstance(kind, MapOf):
            for key, entry in value.items():
                _check_value(
                    ctx, _member(at, key), entry, Field(kind.value, nullable=False)
                )
        else:
            _check_struct(ctx, at, value, kind)
    else:
        _wrong(ctx, at, kind, value)


def _check_struct(
    ctx: Context, at: At, members: dict[str, object], struct: Struct
) -> None:
    spelled: dict[str, str] = {}
    for key, value in members.items():
        name = struct.aliases.get(key, key)
        field = struct.fields.get(name)
        member = _member(at, key)
        if field is None:
            if not struct.open:
                known = [*struct.fields, *struct.aliases]
                ctx.error(
                    member,
                    f"unknown field {quoted(key)} in {_owner(at, struct)}"
                    + did_you_mean(key, known),
                    on_key=True,
                )
            continue
        if name in spelled and spelled[name] != key:
            ctx.error(
                member,
                f"{quoted(key)} and {quoted(spelled[name])} are two spellings of one field; "
                "give only one",
                on_key=True,
            )
        spelled[name] = key
        if field.older_guide_only:
            ctx.warning(
                member,
                f"{quoted(key)} comes from the older MTDF guide: Ahma today rejects "
                "tool files that use it",
                on_key=True,
            )
        _check_value(ctx, member, value, field)
    for name, field in struct.fields.items():
        if field.required and name not in spelled:
            ctx.error(
                at, f"{_owner(at, struct)} lacks the required field {quoted(name)}"
            )


def _owner(at: At, struct: Struct) -> str:
    return at.label if at.pointer else f"the {struct.title}"


def _member(at: At, key: str) -> At:
    label = key if not at.pointer else f"{at.label}.{key}"
    return At(child_pointer(at.pointer, key), label)


def _item(at: At, index: int) -> At:
    return At(child_pointer(at.pointer, index), f"{at.label}[{index}]")


def _wrong(ctx: Context, at: At, kind: Kind, value: object) -> None:
    got = show(value) if isinstance(value, (str, int, float)) else type_name(value)
    ctx.error(at, f"{quoted(at.label)} must be {_expected(kind)}, got {got}")


def _expected(kind: Kind) -> str:
    if isinstance(kind, Scalar):
        return kind.expected
    if isinstance(kind, Variants):
        return " or ".join(quoted(name) for name in kind.names)
    if isinstance(kind, ListOf):
        return "an array"
    return "an object"
