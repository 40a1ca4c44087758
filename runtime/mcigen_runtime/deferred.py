"""``DeferredModel``: the base of the runtime's own pydantic models (results, the
client's), whose validator and serializer are built by their first validation or
dump rather than by their class statement.

Building them at import was ~15% of a cached ``MCIClient``'s start (and the
first one read every installed distribution's entry points, for pydantic's
plugins), while a call builds its result without either (``results``). Pydantic
gives a deferred model the signature ``(**data)`` until it is built; here, asking
for the signature (``inspect.signature``, ``help``) builds the model first, so it
reads as it always did: ``(*, content, isError=..., metadata=...)``.
"""

from __future__ import annotations

import inspect
from typing import Any

from pydantic import BaseModel, ConfigDict

__all__ = ["DeferredModel"]


class _BuiltSignature:
    """A deferred model's ``__signature__``: read on the class, it builds the
    model, whose build sets pydantic's own signature in its place; an instance has
    none (its ``__call__``, if any, gives its signature), as pydantic has it."""

    def __get__(self, instance: object, owner: type[BaseModel]) -> inspect.Signature:
        if instance is not None:
            raise AttributeError(
                f"'__signature__' attribute of {owner.__name__!r} is class-only"
            )
        if owner.model_rebuild(raise_errors=False) is False:
            # a name its fields use is not defined yet: pydantic's (**data) until it is
            unbound = inspect.signature(owner.__init__)
            return unbound.replace(parameters=list(unbound.parameters.values())[1:])
        signature: inspect.Signature = owner.__signature__
        return signature


class DeferredModel(BaseModel):
    """A model built on first use, its signature as if it had been built at once;
    so are its subclasses, unless one asks otherwise (``defer_build=False``)."""

    model_config = ConfigDict(defer_build=True)

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        super().__pydantic_init_subclass__(**kwargs)
        if not cls.__pydantic_complete__:
            cls.__signature__ = _BuiltSignature()  # type: ignore[assignment]
