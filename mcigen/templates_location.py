"""Where the emission templates are, found without loading the backend."""

from __future__ import annotations

from pathlib import Path

_PACKAGE_DIR = Path(__file__).resolve().parent


def templates_dir() -> Path:
    """``mcigen/templates`` in an installed wheel, the repository's ``templates/`` otherwise."""
    installed = _PACKAGE_DIR / "templates"
    return installed if installed.is_dir() else _PACKAGE_DIR.parent / "templates"
