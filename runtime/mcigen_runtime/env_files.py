"""Environment files: ``.env.mci`` and ``.env``, read as mcix reads them.

In a directory, ``mci/.env.mci`` then ``.env.mci`` are read when either exists
(the later wins); otherwise ``mci/.env`` then ``.env``. A file holds ``NAME=value``
lines: blank lines and ``#`` comments are skipped, ``export`` in front is allowed,
a value in single or double quotes keeps what is inside them (``\\n`` and ``\\"`` in
double quotes are a newline and a quote), an unquoted value ends at `` #``.
Anything else on a line is skipped: a file is data someone else may have written,
and reading it never fails. Values from files come below the process's environment,
and that below a client's own ``env_vars`` (:func:`with_env_files`, what mcix's
client is given).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, MutableMapping
from pathlib import Path
from typing import Any

MAX_FILE_BYTES = 1024 * 1024
"""A larger file is not read (it holds no settings)."""

_LINE = re.compile(r"\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_.]*)\s*=\s*(.*?)\s*")
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", '"': '"', "\\": "\\"}


def env_file_paths(directory: Path) -> list[Path]:
    """The files read in ``directory``, lowest precedence first."""
    mci = [directory / "mci" / ".env.mci", directory / ".env.mci"]
    if any(path.is_file() for path in mci):
        return [path for path in mci if path.is_file()]
    plain = [directory / "mci" / ".env", directory / ".env"]
    return [path for path in plain if path.is_file()]


def read_env_files(directory: Path) -> dict[str, str]:
    """The variables the files in ``directory`` set."""
    values: dict[str, str] = {}
    for path in env_file_paths(directory):
        values.update(parse_env_text(_text(path)))
    return values


def load_env_files(
    directory: Path, environ: MutableMapping[str, str] = os.environ
) -> list[Path]:
    """Set in ``environ`` each variable the files set that it does not have; the
    files read."""
    for name, value in read_env_files(directory).items():
        environ.setdefault(name, value)
    return env_file_paths(directory)


def with_env_files(
    directory: str | Path, env_vars: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """The files of ``directory`` under the process's environment under
    ``env_vars``: ``Client(env_vars=with_env_files(".", {...}))`` gives the tools
    what mcix's client gives them."""
    return {**read_env_files(Path(directory)), **os.environ, **(env_vars or {})}


def parse_env_text(text: str) -> dict[str, str]:
    values: dict[str, str] = {}
    for line in text.splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        match = _LINE.fullmatch(line)
        if match is not None:
            value = _value(match.group(2))
            if value is not None:
                values[match.group(1)] = value
    return values


def _value(raw: str) -> str | None:
    if raw[:1] in ("'", '"'):
        quote = raw[0]
        end = _closing(raw, quote)
        if end is None or raw[end + 1 :].strip()[:1] not in ("", "#"):
            return None
        inner = raw[1:end]
        return _unescaped(inner) if quote == '"' else inner
    return re.split(r"\s+#", raw, maxsplit=1)[0]


def _closing(raw: str, quote: str) -> int | None:
    index = 1
    while index < len(raw):
        if raw[index] == "\\" and quote == '"':
            index += 2
            continue
        if raw[index] == quote:
            return index
        index += 1
    return None


def _unescaped(text: str) -> str:
    return re.sub(r"\\(.)", lambda m: _ESCAPES.get(m.group(1), "\\" + m.group(1)), text)


def _text(path: Path) -> str:
    try:
        with path.open("rb") as file:
            data = file.read(MAX_FILE_BYTES + 1)
    except OSError:
        return ""
    if len(data) > MAX_FILE_BYTES:
        return ""
    return data.decode("utf-8", errors="replace")
