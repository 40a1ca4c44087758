"""The jinja2 environment over the top-level ``templates/`` directory.

Templates write only :class:`~.pysource.Code`: a plain string reaching a
template's output (raw input, by mistake) is an error, not generated code. A
template of another format (``templates/project/``) writes only that format's
marked text (``Toml``, ``Markdown``), and no Python code either.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache, partial
from typing import Any

import jinja2

from ..templates_location import templates_dir
from .pysource import Code


class UnmarkedText(TypeError):
    """A template was given text that was not made into code by ``pysource``."""


def _only_code(value: object) -> object:
    if isinstance(value, str) and not isinstance(value, Code):
        raise UnmarkedText(f"a template was given unescaped text: {value[:80]!r}")
    return value


def _indent(text: Code, width: int = 4) -> Code:
    """jinja's ``indent``: every line but the first indented, blank lines left blank."""
    first, *rest = str(_only_code(text)).split("\n")
    return Code(
        "\n".join([first, *(" " * width + line if line else "" for line in rest)])
    )


def _join(items: Iterable[Code], separator: str = "") -> Code:
    return Code(separator.join(str(_only_code(item)) for item in items))


@cache
def _environment() -> jinja2.Environment:
    environment = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(templates_dir())),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
        finalize=_only_code,
    )
    environment.filters["indent"] = _indent
    environment.filters["join"] = _join
    return environment


def render(template: str, context: dict[str, Any], marked: type[str] = Code) -> str:
    """``template`` rendered; every value it writes must be a ``marked``."""
    return _marked_environment(marked).get_template(template).render(context)


@cache
def _marked_environment(marked: type[str]) -> jinja2.Environment:
    if marked is Code:
        return _environment()
    return _environment().overlay(finalize=partial(_only, marked))


def _only(marked: type[str], value: object) -> object:
    if isinstance(value, str) and type(value) is not marked:
        raise UnmarkedText(
            f"a {marked.__name__} template was given other text: {value[:80]!r}"
        )
    return value
