"""Python names for MCI names: functions, parameters, classes and module groups.

Every identifier the backend writes is made here, by :func:`identifier`: the name
is NFKC-normalised first (Python normalises identifiers that way when it parses
them, so ``ｒｅａｄ_file`` *is* ``read_file``), cut down to identifier characters,
and kept clear of keywords and of the names its scope already binds. Collisions
between the results are the callers' to report or resolve (``unique``).
"""

from __future__ import annotations

import builtins
import importlib.machinery
import importlib.util
import keyword
import re
import sys
import unicodedata
from collections.abc import Callable, Collection
from importlib.machinery import ModuleSpec
from pathlib import Path

from ..diagnostics import quoted
from .dependency_names import dependency_modules

_WORD_BOUNDARY = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_UNDERSCORES = re.compile(r"_+")

BUILTINS = frozenset(name for name in dir(builtins) if not name.startswith("_"))

MODULE_SCOPE = BUILTINS | {
    # bound at the top of every generated module, or imported by input models
    "annotations",
    "date",
    "datetime",
    "time",
    "timedelta",
    "conbytes",
    "condecimal",
    "confloat",
    "conint",
    "conlist",
    "constr",
    "field_validator",
    "model_validator",
    # bound in the package's __init__ and its submodules' names
    "importlib",
    "client",
    "meta",
    "models",
    "operations",
    "server",
    "tools",
}
"""What a public name in a generated module must not shadow: a tool called ``type``
would replace the builtin every other tool of its module calls."""

PARAMETER_SCOPE = frozenset(
    {"_raw", "_environ", "_structured_result", "_timeout", "dict", "str", "Any"}
)
"""The names a generated function's own body reads besides its parameters, and
its own keywords that are not tool input (``_timeout`` of an MCP tool's)."""


def identifier(
    text: str,
    *,
    reserved: Collection[str] = (),
    prefix: str = "p",
    convert: Callable[[str], str] = lambda name: name,
    ascii_only: bool = False,
) -> str:
    """A valid, NFKC-stable Python identifier for ``text``.

    ``convert`` restyles the normalised text (e.g. :func:`snake_case`). A result that
    is not an identifier has every other character replaced by ``_`` (with
    ``ascii_only``, every non-ASCII one by ``u`` and its code point), runs of ``_``
    collapsed and edge ``_`` dropped; then ``prefix`` stands for an empty name and
    goes before a leading digit. A keyword or a name in ``reserved`` gets a
    trailing ``_``."""
    name = convert(_nfkc(text))
    if not name.isidentifier() or (ascii_only and not name.isascii()):
        name = "".join(_identifier_char(char, ascii_only) for char in name)
        name = _UNDERSCORES.sub("_", name).strip("_")
        if not name:
            name = prefix
        elif not name[0].isidentifier():
            name = f"{prefix}_{name}"
    if _nfkc(name) != name:  # lower() can denormalise a few rare letters
        return identifier(name, reserved=reserved, prefix=prefix, ascii_only=True)
    while keyword.iskeyword(name) or name in reserved:
        name += "_"
    return name


def _nfkc(text: str) -> str:
    return unicodedata.normalize("NFKC", text)


def _identifier_char(char: str, ascii_only: bool) -> str:
    if ascii_only and not char.isascii():
        return f"_u{ord(char):x}_"
    return char if f"_{char}".isidentifier() else "_"


def snake_case(name: str) -> str:
    """``getWeather`` -> ``get_weather``, ``HTTPStatus`` -> ``http_status``, ``a-b`` -> ``a_b``."""
    spaced = _WORD_BOUNDARY.sub("_", name)
    words = [w for w in re.sub(r"\W+", "_", spaced).split("_") if w]
    return "_".join(words).lower()


def class_name(name: str) -> str:
    """``get_weather`` -> ``GetWeather``: ASCII letters and digits only (the model
    generator renames anything else), ``Tool`` before a leading digit."""
    words = identifier(name, prefix="tool", convert=snake_case, ascii_only=True)
    pascal = "".join(w[:1].upper() + w[1:] for w in words.split("_"))
    return pascal if pascal[:1].isalpha() else f"Tool{pascal}"


def function_name(tool_name: str) -> str:
    """The public function name of a tool: snake_case, never private, never a
    keyword, never a name its module or package binds."""
    return identifier(
        tool_name, reserved=MODULE_SCOPE, prefix="tool", convert=snake_case
    )


def parameter_name(property_name: str) -> str:
    """A keyword-parameter name for an inputSchema property (the original stays the key)."""
    return identifier(property_name, reserved=PARAMETER_SCOPE)


def module_name(name: str) -> str:
    """A module (group) name for a toolset or server name: ASCII, so that its file
    name is the same on every file system."""
    return identifier(name, prefix="g", convert=snake_case, ascii_only=True)


def package_name_problem(name: str, built_at: Path | None = None) -> str | None:
    """Why ``name`` cannot be the import name of a generated package, or None;
    ``built_at``: the package's directory, where an earlier build of it may be."""
    if not name.isidentifier() or _nfkc(name) != name:
        return f"{quoted(name)} is not a valid package name"
    if keyword.iskeyword(name):
        return f"{quoted(name)} is a Python keyword and cannot be imported"
    if name in sys.stdlib_module_names:
        return f"{quoted(name)} would shadow Python's own {quoted(name)}"
    installed = _installed(name, built_at)
    distribution = dependency_modules().get(name) if installed else None
    if distribution is not None:
        return (
            f"{quoted(name)} would shadow {quoted(name)} from {distribution}, which generated "
            "packages run with"
        )
    return None


def _installed(name: str, built_at: Path | None) -> bool:
    """Whether a module ``name`` is installed here (cheaper to ask than what the
    dependencies' modules are). The package at ``built_at`` is not: a rebuild finds
    its earlier self on the path (the current directory), so it is looked for
    again without that directory (which could hide an installed one)."""
    if name in sys.modules:  # mcigen's own, and what it runs with
        return True
    try:
        spec = importlib.util.find_spec(name)
        if spec is None or built_at is None or not _within(spec, built_at):
            return spec is not None
        beside = built_at.resolve().parent
        path = [p for p in sys.path if Path(p or ".").resolve() != beside]
        return importlib.machinery.PathFinder.find_spec(name, path) is not None
    except (ImportError, ValueError, OSError):
        return True


def _within(spec: ModuleSpec, directory: Path) -> bool:
    places = [*(spec.submodule_search_locations or ()), spec.origin or ""]
    return all(Path(p).resolve().is_relative_to(directory.resolve()) for p in places)
