"""What a project's ``Dockerfile`` says: an image that installs the project with its
``serve`` extra and serves the tools over Streamable HTTP as a non-root user."""

from __future__ import annotations

import json
import re
from typing import Any

from .distribution import Distribution

UID = 10001
"""The user (and group) the server runs as: not root, and numeric, so that
``runAsNonRoot`` can check it."""

PORT = 8000

_WORD = re.compile(r"[A-Za-z0-9_.-]+")


class DockerText(str):
    """Text the Dockerfile template may write."""


def docker_word(value: str) -> DockerText:
    """``value``, a name that needs no quoting in a Dockerfile or a shell (a
    distribution name); raises ``ValueError`` for any other."""
    if not _WORD.fullmatch(value):
        raise ValueError(f"not a plain name for a Dockerfile: {value!r}")
    return DockerText(value)


def dockerfile_context(dist: Distribution, import_name: str) -> dict[str, Any]:
    """The values ``templates/project/Dockerfile.jinja`` writes."""
    serve = ["python", "-m", import_name, "serve", "--http", f"0.0.0.0:{PORT}"]
    return {
        "command": DockerText(json.dumps(serve, ensure_ascii=False)),
        "image": docker_word(dist.name.lower()),
        "uid": DockerText(str(UID)),
        "port": DockerText(str(PORT)),
    }
