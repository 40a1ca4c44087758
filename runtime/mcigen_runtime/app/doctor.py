"""``python -m pkg doctor``: whether the programs the package's tools run are
installed here.

Each availability probe of the manifest runs once, however many tools share it,
a few at a time, each bounded as a cli tool's call is: its own timeout, its
process group killed when it passes it, at most :data:`PROBE_OUTPUT` bytes kept of
each of its outputs. A probe passes when its exit code is one of its success codes;
anything else (another code, a program that does not exist, a timeout) means its
tools are missing here. Probes see the process's own environment: they ask what
this machine has installed.
"""

from __future__ import annotations

import asyncio
import os
import shlex
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TextIO

from ..executors.cli import CliCall, run_cli_async
from ..limits import Limits
from ..manifest import Probe, ToolEntry
from ..path_policy import WorkingDirectory, open_directory
from ..printable import printable
from ..registry import Registry

PROBE_OUTPUT = 64 * 1024
"""Bytes kept of a probe's stdout, and of its stderr."""
SHOWN_CHARS = 300
"""Characters of a failed probe's message the report shows."""
AT_ONCE = 8
"""Probes running at the same time."""

EXIT_ALL_THERE, EXIT_MISSING = 0, 1


@dataclass(frozen=True)
class Finding:
    probe: Probe
    tools: tuple[str, ...]
    """The names of the tools that need what the probe looks for."""
    problem: str | None
    """Why the probe failed; None when it passed."""


def run_doctor(tools: Registry, out: TextIO) -> int:
    """Run every probe, report to ``out``; :data:`EXIT_MISSING` when one failed."""
    shared = shared_probes(tools.tools)
    findings = asyncio.run(_findings(shared))
    for finding in findings:
        _report(finding, out)
    missing = sum(finding.problem is not None for finding in findings)
    print(
        f"\n{len(findings)} probe(s): {len(findings) - missing} passed, "
        f"{missing} missing.",
        file=out,
    )
    return EXIT_MISSING if missing else EXIT_ALL_THERE


def shared_probes(entries: Iterable[ToolEntry]) -> dict[Probe, list[str]]:
    """Each distinct probe, in the order tools list them, with the tools it serves."""
    by_probe: dict[Probe, list[str]] = {}
    for entry in entries:
        for probe in entry.probes:
            by_probe.setdefault(probe, []).append(entry.name)
    return by_probe


async def _findings(shared: dict[Probe, list[str]]) -> list[Finding]:
    slots = asyncio.Semaphore(AT_ONCE)

    async def finding(probe: Probe, tools: list[str]) -> Finding:
        async with slots:
            return Finding(probe, tuple(tools), await _problem(probe))

    return list(
        await asyncio.gather(
            *(finding(probe, names) for probe, names in shared.items())
        )
    )


async def _problem(probe: Probe) -> str | None:
    """Why ``probe`` fails here, or None when it passes."""
    if not probe.argv:
        return "its command is empty"
    try:
        cwd = _opened(probe.working_directory)
    except OSError as error:
        return f"cannot enter its working directory: {error}"
    limits = Limits(cli_output=PROBE_OUTPUT)
    call = CliCall(
        list(probe.argv), cwd, probe.timeout_ms / 1000, limits, os.environ, "inherit"
    )
    result = await run_cli_async(call)
    metadata = result.metadata or {}
    code = metadata.get("exit_code")
    if code is not None and code in probe.success_exit_codes:
        return None
    if code is None or code < 0:  # it did not start, or was stopped by a signal
        return _shown(result.text)
    stderr = _shown(str(metadata.get("stderr") or ""))
    return f"exited with code {code}" + (f": {stderr}" if stderr else "")


def _opened(directory: str | None) -> WorkingDirectory | None:
    return None if directory is None else open_directory(directory)


def _shown(text: str) -> str:
    """The first non-blank line of ``text``, cut to :data:`SHOWN_CHARS`."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    first = lines[0] if lines else ""
    return first if len(first) <= SHOWN_CHARS else first[: SHOWN_CHARS - 1] + "…"


def _report(finding: Finding, out: TextIO) -> None:
    """The finding's lines: each one line, whatever the names, the command, its
    stderr and the install instructions hold (see ``printable``)."""
    probe = finding.probe
    if finding.problem is None:
        count = len(finding.tools)
        lines = [f"ok       {probe.subject} ({count} tool{'s' * (count != 1)})"]
    else:
        lines = [
            f"MISSING  {probe.subject}",
            f"  ran:     {shlex.join(probe.argv)}",
            f"  result:  {finding.problem}",
            f"  tools:   {', '.join(finding.tools)}",
        ]
        if probe.install_instructions:
            lines.append(f"  install: {probe.install_instructions}")
    for line in lines:
        print(printable(line), file=out)
