"""An ``inputSchema`` checked against the JSON Schema meta-schema of its draft.

The draft is the one ``$schema`` names (2020-12 when it names none). Every error is
reported, each at the node it concerns. ``pattern`` (and every other place the
meta-schema declares a regular expression) is compiled by pydantic-core's regex
engine, the one the generated input models use, so that a schema that builds also
imports.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from typing import Any, cast

from jsonschema import Draft202012Validator, FormatChecker
from jsonschema.exceptions import ValidationError, best_match
from jsonschema.protocols import Validator
from jsonschema.validators import validator_for
from pydantic_core import SchemaError, SchemaValidator, core_schema

from ...diagnostics import quoted

DEFAULT_DRAFT = Draft202012Validator


@dataclass(frozen=True)
class SchemaProblem:
    """One error: the path from the schema's root to the node, and what is wrong."""

    path: tuple[str | int, ...]
    message: str


def draft_of(schema: dict[str, Any]) -> type[Validator] | None:
    """The draft ``$schema`` names (2020-12 without one); None for an unknown one."""
    dialect = schema.get("$schema")
    if not isinstance(dialect, str):  # the meta-schema reports a non-string
        return DEFAULT_DRAFT
    # validator_for returns its default, here None, for a $schema it does not know.
    draft: type[Validator] | None = validator_for(schema, cast(Any, None))
    return draft


def meta_schema_problems(
    schema: dict[str, Any], draft: type[Validator]
) -> Iterator[SchemaProblem]:
    """Every way ``schema`` breaks the meta-schema of ``draft``."""
    seen: set[SchemaProblem] = set()
    for error in _meta_validator(draft).iter_errors(schema):
        # anyOf/oneOf errors say only "not valid under any of the given schemas";
        # the best of their sub-errors says which part was wrong.
        precise = best_match(error.context) if error.context else error
        problem = SchemaProblem(tuple(precise.absolute_path), _message(precise))
        # 2020-12 checks a subschema once per vocabulary: one error, many times.
        if problem not in seen:
            seen.add(problem)
            yield problem


@cache
def _meta_validator(draft: type[Validator]) -> Validator:
    regex_checker = FormatChecker(formats=())
    regex_checker.checks("regex", raises=SchemaError)(_compiles)
    return draft(draft.META_SCHEMA, format_checker=regex_checker)


def _compiles(pattern: object) -> bool:
    if isinstance(pattern, str):
        SchemaValidator(core_schema.str_schema(pattern=pattern))
    return True


def _message(error: ValidationError) -> str:
    if error.validator == "format" and isinstance(error.cause, SchemaError):
        return (
            f"{_show(error.instance)} is not a regular expression the generated "
            f"models can use: {_regex_problem(error.cause)}"
        )
    return error.message


def _regex_problem(cause: SchemaError) -> str:
    """The last line of the regex parser's report ("error: unclosed group")."""
    lines = [line.strip() for line in str(cause).splitlines() if line.strip()]
    reason = lines[-1] if lines else "invalid"
    return reason.removeprefix("error: ")


def _show(value: object) -> str:
    return quoted(value) if isinstance(value, str) else repr(value)
