"""Python names for MCI names: functions, parameters, classes and module groups."""

from __future__ import annotations

import keyword
import re

_WORD_BOUNDARY = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_NOT_IDENTIFIER = re.compile(r"\W+")


def snake_case(name: str) -> str:
    """``getWeather`` -> ``get_weather``, ``HTTPStatus`` -> ``http_status``, ``a-b`` -> ``a_b``."""
    spaced = _WORD_BOUNDARY.sub("_", name)
    words = [w for w in _NOT_IDENTIFIER.sub("_", spaced).split("_") if w]
    return "_".join(words).lower()


def class_name(name: str) -> str:
    """``get_weather`` -> ``GetWeather``; a name that would start with a digit gets ``Tool``."""
    pascal = "".join(w[:1].upper() + w[1:] for w in snake_case(name).split("_"))
    return pascal if pascal[:1].isalpha() else f"Tool{pascal}"


def function_name(tool_name: str) -> str:
    """The public function name of a tool: snake_case, never private, never a keyword."""
    name = snake_case(tool_name) or "tool"
    if name[0].isdigit():
        name = f"tool_{name}"
    return _avoid_keyword(name)


def parameter_name(property_name: str) -> str:
    """A keyword-parameter name for an inputSchema property (the original stays the key)."""
    if property_name.isidentifier():
        return _avoid_keyword(property_name)
    name = _NOT_IDENTIFIER.sub("_", property_name).strip("_") or "arg"
    if name[0].isdigit():
        name = f"p_{name}"
    return _avoid_keyword(name)


def module_name(name: str) -> str:
    """A module (group) name for a toolset or server name."""
    module = snake_case(name) or "group"
    return f"g_{module}" if module[0].isdigit() else _avoid_keyword(module)


def _avoid_keyword(name: str) -> str:
    return f"{name}_" if keyword.iskeyword(name) else name


def unique(name: str, taken: set[str]) -> str:
    """``name``, or ``name_2``, ``name_3``... whichever is not in ``taken``; records it."""
    candidate, counter = name, 1
    while candidate in taken:
        counter += 1
        candidate = f"{name}_{counter}"
    taken.add(candidate)
    return candidate
