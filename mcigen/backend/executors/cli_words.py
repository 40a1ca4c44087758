"""The statements that build the command line of a cli tool whose command is
literal words (an MTDF tool): the flags one by one in argv order, values read
from the call's input, no template and no table read at call time."""

from __future__ import annotations

from dataclasses import dataclass

from ... import ir
from ..pysource import Code, code, literal


@dataclass
class CliWords:
    """What ``_prepare_<tool>`` runs: ``checks`` before anything else (they raise
    ``ToolInputError``), then ``root`` (it opens the working directory as
    ``root``), then ``statements``; ``root`` and ``statements`` may raise
    ``PathRefused`` or ``OSError``, which become an error result (``root``, holding
    descriptors, closed). They leave ``argv``, ``cwd`` and, with ``temp_files``,
    ``files``."""

    checks: list[Code]
    root: Code | None
    statements: list[Code]
    timeout: Code
    temp_files: bool


def cli_words(tool_name: str, execution: ir.CliExecution) -> CliWords:
    words = _Words(literal(tool_name))
    words.build(execution)
    return CliWords(
        [code(s) for s in words.checks],
        code(words.root) if words.root is not None else None,
        [code(s) for s in words.statements],
        code(words.timeout),
        words.temp_files,
    )


class _Words:
    def __init__(self, tool: str) -> None:
        self.tool = tool
        self.checks: list[str] = []
        self.statements: list[str] = []
        self.timeout = ""
        self.temp_files = False
        self.root: str | None = None
        self.paths_by_name = False

    def build(self, execution: ir.CliExecution) -> None:
        self.paths_by_name = execution.paths_by_name
        default_s = literal(execution.timeout_ms / 1000)
        self.timeout = default_s
        if execution.timeout_property is not None:
            key = literal(execution.timeout_property)
            timeout_s = _cli_name("timeout_s")
            self.checks.append(
                f"timeout = {timeout_s}(raw, key={key}, default_s={default_s}, "
                f"tool={self.tool})"
            )
            self.timeout = "timeout"
        if execution.extra_args is not None:
            key = literal(execution.extra_args)
            extra_args = _cli_name("extra_args")
            allowed = literal(execution.extra_args_allowed)
            self.checks.append(
                f"extra = {extra_args}(raw, key={key}, tool={self.tool}, "
                f"allowed={allowed})"
            )
        plain = tuple(
            flag.source
            for flag in execution.flags
            if flag.operand
            and not flag.path
            and not flag.file_flag
            and flag.source != execution.script_operand  # the shell reads it all
        )
        if plain and not execution.extra_args_allowed:
            self.checks.append(
                f"{_cli_name('plain_operands')}(raw, keys={literal(plain)}, "
                f"tool={self.tool})"
            )
        if execution.working_directory is not None:
            key = literal(execution.working_directory)
            working_root = _cli_name("working_root")
            self.root = f"{working_root}(raw, key={key}, tool={self.tool})"
        head = [execution.command, *execution.args]
        self.statements.append(f"argv: list[str] = {literal(head)}")
        given = ""
        for index, flag in enumerate(execution.flags, start=1):
            self.statements.append(self.flag(flag, f"value_{index}"))
            if flag.source == execution.script_operand:
                given = f", given=value_{index} is not None"
        if execution.extra_args is not None:
            self.statements.append("argv += extra")
        if execution.script_from is not None:
            shell_script = _cli_name("shell_script")
            self.statements.append(
                f"argv = {shell_script}(argv, start={execution.script_from}, "
                f"suffix={literal(execution.script_suffix)}{given})"
            )
        self.statements.append("cwd = root" if self.root is not None else "cwd = None")

    def flag(self, flag: ir.CliFlag, value: str) -> str:
        read = f"raw.get({literal(flag.source)})"
        if flag.kind == "boolean":
            text = f"-{flag.alias}" if flag.alias is not None else flag.name
            return f"if {read} is True:\n    argv.append({literal(text)})"
        if flag.kind == "values":
            add = _append(flag, self.checked("element", flag))
            return f"for element in {_cli_name('words')}({read}):\n    {add}"
        if flag.file_flag:
            self.temp_files = True
            item = f"files.write({value})"
        else:
            item = self.checked(value, flag)
        add = _append(flag, item)
        return f"{value} = {_cli_name('word')}({read})\nif {value}:\n    {add}"

    def checked(self, value: str, flag: ir.CliFlag) -> str:
        if not flag.path or self.root is None:
            return value
        return f"root.{'name' if self.paths_by_name else 'hold'}({value})"


def _append(flag: ir.CliFlag, item: str) -> str:
    """The statement that adds ``item`` to argv: alone for an operand, after the
    flag's text otherwise."""
    if flag.operand:
        return f"argv.append({item})"
    return f"argv += [{literal(flag.name)}, {item}]"


def _cli_name(name: str) -> str:
    """``name`` of the cli face, which the group module imports as ``_cli``."""
    return f"_cli.{name}"
