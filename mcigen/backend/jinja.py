"""The jinja2 environment over the top-level ``templates/`` directory."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

import jinja2

_PACKAGE_DIR = Path(__file__).resolve().parent.parent


def templates_dir() -> Path:
    """``mcigen/templates`` in an installed wheel, the repository's ``templates/`` otherwise."""
    installed = _PACKAGE_DIR / "templates"
    return installed if installed.is_dir() else _PACKAGE_DIR.parent / "templates"


@cache
def _environment() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(templates_dir())),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
    )


def render(template: str, context: dict[str, Any]) -> str:
    return _environment().get_template(template).render(context)
