"""Small composable checks from which the field rules of MCI schemas and
broker configs are declared.

Each check validates one value, reports every problem it finds to the
:class:`Context` and never stops at the first one. Messages name the field by its
label and say what was expected and what was found.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from ..diagnostics import did_you_mean, quoted
from .context import (
    At,
    Context,
    TemplateMode,
    check_key_is_string,
    show,
    type_name,
)


class Check(ABC):
    """Validates one value and reports what is wrong with it."""

    @property
    def expected(self) -> str:
        """Completes "'field' must be ...", e.g. "a string"."""
        return "a value"

    @property
    def plural(self) -> str:
        """What a list of such values holds, for "an array of ..."."""
        return "values"

    @abstractmethod
    def check(self, ctx: Context, at: At, value: object) -> None: ...


class ObjectCheck(Check):
    @property
    def expected(self) -> str:
        return "an object"

    @property
    def plural(self) -> str:
        return "objects"


@dataclass(frozen=True)
class Str(Check):
    choices: tuple[str, ...] = ()
    template: TemplateMode = TemplateMode.NONE
    non_empty: bool = False
    any_case: bool = False
    """Accept a choice in another letter case, with a warning."""

    @property
    def plural(self) -> str:
        return "strings"

    @property
    def expected(self) -> str:
        if self.choices:
            return "one of " + ", ".join(quoted(choice) for choice in self.choices)
        return "a non-empty string" if self.non_empty else "a string"

    def check(self, ctx: Context, at: At, value: object) -> None:
        if not isinstance(value, str):
            ctx.type_error(at, self.expected, value)
        elif self.non_empty and not value:
            ctx.value_error(at, self.expected, value)
        elif self.choices and value not in self.choices:
            self._check_spelling(ctx, at, value)
        elif self.template is not TemplateMode.NONE:
            ctx.parse_template(at, value, self.template)

    def _check_spelling(self, ctx: Context, at: At, value: str) -> None:
        by_case = {choice.casefold(): choice for choice in self.choices}
        canonical = by_case.get(value.casefold())
        if self.any_case and canonical is not None:
            ctx.warning(
                at,
                f"{quoted(at.label)} should be written {quoted(canonical)}, got {show(value)}",
            )
        else:
            ctx.value_error(at, self.expected, value, did_you_mean(value, self.choices))


@dataclass(frozen=True)
class Bool(Check):
    @property
    def expected(self) -> str:
        return "a boolean"

    @property
    def plural(self) -> str:
        return "booleans"

    def check(self, ctx: Context, at: At, value: object) -> None:
        if not isinstance(value, bool):
            ctx.type_error(at, self.expected, value)


@dataclass(frozen=True)
class Int(Check):
    minimum: int
    maximum: int | None = None

    @property
    def plural(self) -> str:
        return "integers"

    @property
    def expected(self) -> str:
        return f"an integer >= {self.minimum}"

    def check(self, ctx: Context, at: At, value: object) -> None:
        if isinstance(value, bool) or not isinstance(value, int):
            ctx.type_error(at, self.expected, value)
        elif value < self.minimum:
            ctx.value_error(at, self.expected, value)
        elif self.maximum is not None and value > self.maximum:
            ctx.value_error(at, f"at most {self.maximum}", value)


@dataclass(frozen=True)
class ArrayOf(Check):
    item: Check

    @property
    def plural(self) -> str:
        return "arrays"

    @property
    def expected(self) -> str:
        return f"an array of {self.item.plural}"

    def check(self, ctx: Context, at: At, value: object) -> None:
        if not isinstance(value, list):
            ctx.type_error(at, self.expected, value)
            return
        for index, item in enumerate(value):
            self.item.check(ctx, at.item(index), item)


@dataclass(frozen=True)
class MapOf(ObjectCheck):
    """An object with free-form keys whose values all pass ``value``."""

    value: Check

    def check(self, ctx: Context, at: At, value: object) -> None:
        if not isinstance(value, dict):
            ctx.type_error(at, self.expected, value)
            return
        for key, item in value.items():
            check_key_is_string(ctx, at, key)
            self.value.check(ctx, at.entry(key), item)


_JSON_SCALARS = (str, int, float, bool, type(None))
_KIND_PHRASES = {"object": "an object", "array": "an array"}


@dataclass(frozen=True)
class AnyJson(Check):
    """Any JSON data, optionally restricted at the top to ``kinds``; strings inside
    are parsed as templates when ``template`` says so."""

    kinds: tuple[str, ...] = ()
    template: TemplateMode = TemplateMode.NONE

    @property
    def expected(self) -> str:
        if not self.kinds:
            return "JSON data"
        return " or ".join(_KIND_PHRASES[kind] for kind in self.kinds)

    def check(self, ctx: Context, at: At, value: object) -> None:
        if self.kinds and type_name(value) not in self.kinds:
            ctx.type_error(at, self.expected, value)
            return
        self._walk(ctx, at, value)

    def _walk(self, ctx: Context, at: At, value: object) -> None:
        if isinstance(value, str):
            if self.template is not TemplateMode.NONE:
                ctx.parse_template(at, value, self.template)
        elif isinstance(value, list):
            for index, item in enumerate(value):
                self._walk(ctx, at.item(index), item)
        elif isinstance(value, dict):
            for key, item in value.items():
                check_key_is_string(ctx, at, key)
                self._walk(ctx, at.entry(key), item)
        elif not isinstance(value, _JSON_SCALARS):
            ctx.type_error(at, "JSON data", value)


Rule = Callable[[Context, At, dict[str, object]], None]


@dataclass(frozen=True)
class Obj(ObjectCheck):
    """An MCI object with known fields.

    Unknown fields are warnings (errors with ``strict``); with ``free_form`` they
    are accepted unless they look like a misspelt known field.
    """

    what: str
    required: Mapping[str, Check] = field(default_factory=dict)
    optional: Mapping[str, Check] = field(default_factory=dict)
    rules: tuple[Rule, ...] = ()
    free_form: bool = False
    strict: bool = False

    def check(self, ctx: Context, at: At, value: object) -> None:
        if not isinstance(value, dict):
            ctx.type_error(at, self.expected, value)
            return
        for name in self.required:
            if name not in value:
                ctx.error(at, f"missing required field {quoted(name)} in {self.what}")
        for key, item in value.items():
            field_check = self.required.get(key) or self.optional.get(key)
            if field_check is None:
                self._unknown(ctx, at.field(str(key)), str(key))
            else:
                field_check.check(ctx, at.field(key), item)
        for rule in self.rules:
            rule(ctx, at, value)

    def _unknown(self, ctx: Context, at: At, key: str) -> None:
        known = [*self.required, *self.optional]
        suggestion = did_you_mean(key, known)
        if suggestion or not self.free_form:
            report = ctx.error if self.strict else ctx.warning
            report(
                at,
                f"unknown field {quoted(key)} in {self.what}{suggestion}",
                on_key=True,
            )


@dataclass(frozen=True)
class Tagged(ObjectCheck):
    """An object whose ``tag`` field picks the shape of the rest."""

    tag: str
    variants: Mapping[str, Obj]
    what: str

    def check(self, ctx: Context, at: At, value: object) -> None:
        if not isinstance(value, dict):
            ctx.type_error(at, self.expected, value)
        elif self.tag not in value:
            ctx.error(at, f"missing required field {quoted(self.tag)} in {self.what}")
        else:
            kind = value[self.tag]
            if isinstance(kind, str) and kind in self.variants:
                self.variants[kind].check(ctx, at, value)
            else:
                Str(choices=tuple(self.variants)).check(ctx, at.field(self.tag), kind)


@dataclass(frozen=True)
class ByType(Check):
    """A value that may take several JSON types, each with its own check."""

    checks: Mapping[type, Check]
    description: str
    description_plural: str

    @property
    def expected(self) -> str:
        return self.description

    @property
    def plural(self) -> str:
        return self.description_plural

    def check(self, ctx: Context, at: At, value: object) -> None:
        for kind, check in self.checks.items():
            if isinstance(value, kind):
                check.check(ctx, at, value)
                return
        ctx.type_error(at, self.expected, value)


@dataclass(frozen=True)
class OrNull(Check):
    """A field where null means "not set", as the reference adapter reads it."""

    inner: Check

    @property
    def expected(self) -> str:
        return self.inner.expected

    @property
    def plural(self) -> str:
        return self.inner.plural

    def check(self, ctx: Context, at: At, value: object) -> None:
        if value is not None:
            self.inner.check(ctx, at, value)


@dataclass(frozen=True)
class Ignored(Check):
    """A field that has no effect here (mci-py ignores it without a word): a
    warning; ``where`` completes "is ignored in ...", ``instead`` says where it
    does take effect."""

    where: str
    instead: str

    def check(self, ctx: Context, at: At, value: object) -> None:
        ctx.warning(
            at,
            f"{quoted(at.label)} is ignored in {self.where}, as mci-py ignores it; "
            f"it takes effect {self.instead}",
            on_key=True,
        )
