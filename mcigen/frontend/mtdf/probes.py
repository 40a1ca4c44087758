"""The availability probes of a listed MTDF tool (AHMA-SEMANTICS §8.8): what
``python -m pkg doctor`` runs to tell whether the tool's program is installed.

A tool is probed unless its command is ``sequence``, or a relative program
(``./x``, ``../x``) without an ``availability_check``: with the check's command
(else the tool's) split on whitespace, then the check's ``args``; without a check,
``/usr/bin/env which PROGRAM``. A leaf subcommand is probed too when it has a check
of its own. Every listed tool of one tool file shares the tool's probe.
"""

from __future__ import annotations

from collections.abc import Mapping

from ... import ir
from .words import split_words

Fields = Mapping[str, object]

DEFAULT_TIMEOUT_MS = 10_000
_SEQUENCE = "sequence"
_RELATIVE_PROGRAM = ("./", "../")


def tool_probes(
    tool: Fields, leaf: Fields | None, leaf_path: str | None
) -> tuple[ir.Probe, ...]:
    """The probes of the listed tool for ``leaf`` (at ``leaf_path``) of ``tool``;
    ``leaf`` is None for a tool without subcommands."""
    probes = []
    own = _tool_probe(tool)
    if own is not None:
        probes.append(own)
    if leaf is not None and leaf_path is not None:
        check = _check(leaf)
        if check is not None:
            probes.append(_leaf_probe(tool, leaf, leaf_path, check))
    return tuple(probes)


def _tool_probe(tool: Fields) -> ir.Probe | None:
    command = str(tool["command"])
    check = _check(tool)
    if command == _SEQUENCE or (
        check is None and command.startswith(_RELATIVE_PROGRAM)
    ):
        return None
    if check is None:
        words = split_words(command)
        argv: tuple[str, ...] = (
            "/usr/bin/env",
            "which",
            words[0] if words else command,
        )
        working_directory = None
        codes: tuple[int, ...] = (0,)
    else:
        argv = _check_argv(check, command)
        working_directory = _text(check, "working_directory")
        codes = _success_codes(check)
    return ir.Probe(
        subject=str(tool["name"]),
        argv=argv,
        success_exit_codes=codes,
        working_directory=working_directory,
        timeout_ms=_timeout_ms(tool.get("timeout_seconds")),
        install_instructions=_text(tool, "install_instructions"),
    )


def _leaf_probe(tool: Fields, leaf: Fields, leaf_path: str, check: Fields) -> ir.Probe:
    timeout = leaf.get("timeout_seconds")
    if timeout is None:
        timeout = tool.get("timeout_seconds")
    instructions = _text(leaf, "install_instructions")
    return ir.Probe(
        subject=f"{tool['name']}::{leaf_path}",
        argv=_check_argv(check, str(tool["command"])),
        success_exit_codes=_success_codes(check),
        working_directory=_text(check, "working_directory"),
        timeout_ms=_timeout_ms(timeout),
        install_instructions=instructions or _text(tool, "install_instructions"),
    )


def _check(fields: Fields) -> Fields | None:
    check = fields.get("availability_check")
    return check if isinstance(check, dict) else None


def _check_argv(check: Fields, tool_command: str) -> tuple[str, ...]:
    command = _text(check, "command") or tool_command
    args = check.get("args")
    extra = [str(arg) for arg in args] if isinstance(args, list) else []
    return (*split_words(command), *extra)


def _success_codes(check: Fields) -> tuple[int, ...]:
    """Ahma's default, ``[0]``, also stands for an empty list."""
    codes = check.get("success_exit_codes")
    if not isinstance(codes, list) or not codes:
        return (0,)
    return tuple(code for code in codes if isinstance(code, int))


def _timeout_ms(seconds: object) -> int:
    if isinstance(seconds, int) and not isinstance(seconds, bool):
        return seconds * 1000
    return DEFAULT_TIMEOUT_MS


def _text(fields: Fields, key: str) -> str | None:
    value = fields.get(key)
    return value if isinstance(value, str) else None
