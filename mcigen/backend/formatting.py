"""black, applied to every emitted Python file."""

from __future__ import annotations

import black
from black.mode import TargetVersion

_MODE = black.Mode(target_versions={TargetVersion.PY311})


def format_python(source: str) -> str:
    return black.format_str(source, mode=_MODE)
