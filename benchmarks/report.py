"""Rows, the targets of issues 7, 19, 33 and 34, the printed table and results.json."""

from __future__ import annotations

import json
import os
import platform
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmarks.timing import Stats


@dataclass(frozen=True)
class Target:
    """A target of issue 7 (or 19: ``MCIClient``). Ratios: ``min_speedup`` over mci-py, ``max_vs_baseline``
    times the hand-written floor; ``max_value`` bounds the figure itself (row's unit);
    ``requires`` names a boolean in the row's ``extra`` that must be true."""

    text: str
    min_speedup: float | None = None
    max_vs_baseline: float | None = None
    max_value: float | None = None
    requires: str | None = None


TARGETS: dict[str, Target] = {
    "text": Target("≥20× mci-py, ≤3× hand", min_speedup=20, max_vs_baseline=3),
    "file": Target("≥10× mci-py", min_speedup=10),
    "http": Target("≥3× mci-py, ≤1.3× httpx", min_speedup=3, max_vs_baseline=1.3),
    "cli": Target("≤1.1× subprocess.run", max_vs_baseline=1.1),
    "mcp": Target("≥100× mci-py, ≤1.5× SDK", min_speedup=100, max_vs_baseline=1.5),
    "cold start": Target(
        "≥3× mci-py, no tool module", min_speedup=3, requires="no_tool_module"
    ),
    "client start": Target(
        "≥5× mci-py, no compiler", min_speedup=5, requires="no_compiler"
    ),
    "build cold": Target("≤10 s", max_value=10.0),
    "rebuild": Target("≤2 s", max_value=2.0),
    "build memory": Target("≤1 GiB", max_value=1024.0),
    "template build": Target("≤5 s", max_value=5.0),
    "adapter": Target("≤1.2× direct call", max_vs_baseline=1.2),
    "serve start": Target("≤0.4× mcix", min_speedup=2.5),
    "serve list": Target("≤ mcix", min_speedup=1),
    "serve text call": Target("≥3× faster than mcix", min_speedup=3),
    "serve throughput": Target("≥ the floor", max_vs_baseline=1),
    "serve scaling": Target("≥1.8× one worker's", requires="scales"),
    "broker": Target("≤1.1× direct call", max_vs_baseline=1.1),
    "mtdf": Target("≤1.1× subprocess.run", max_vs_baseline=1.1),
}
"""Target key -> target; a row names its key in ``Row.target``."""


@dataclass
class Row:
    """One line of the table. Times are in ``unit`` (``us``, ``s``), memory in ``MiB``,
    throughput in ``calls/s`` (where higher is better)."""

    section: str
    name: str
    unit: str
    mcigen: Stats | None
    mci_py: Stats | None = None
    baseline: Stats | None = None
    baseline_name: str | None = None
    target: str | None = None
    note: str = ""
    extra: dict[str, Any] = field(default_factory=dict)
    ratio_by_round: Stats | None = None
    """mcigen's figure over the baseline's, taken round by round: where given, the
    ×hand ratio is its median (a burst of load between rounds moves both)."""

    @property
    def higher_is_better(self) -> bool:
        return self.unit == "calls/s"

    @property
    def speedup(self) -> float | None:
        """How many times better than mci-py (>1: mcigen wins)."""
        if self.mcigen is None or self.mci_py is None or not self.mcigen.median:
            return None
        if self.higher_is_better:
            return self.mcigen.median / self.mci_py.median
        return self.mci_py.median / self.mcigen.median

    @property
    def vs_baseline(self) -> float | None:
        """How many times the hand-written floor's cost (>1: mcigen is slower)."""
        if self.mcigen is None or self.baseline is None or not self.baseline.median:
            return None
        if self.ratio_by_round is not None:
            return self.ratio_by_round.median
        if self.higher_is_better:
            if not self.mcigen.median:
                return None
            return self.baseline.median / self.mcigen.median
        return self.mcigen.median / self.baseline.median

    @property
    def met(self) -> bool | None:
        """Whether the row's target holds; None without a target or a figure."""
        if self.target is None or self.mcigen is None:
            return None
        goal = TARGETS[self.target]
        checks: list[bool] = []
        if goal.min_speedup is not None:
            if self.speedup is None:
                return None
            checks.append(self.speedup >= goal.min_speedup)
        if goal.max_vs_baseline is not None:
            if self.vs_baseline is None:
                return None
            checks.append(self.vs_baseline <= goal.max_vs_baseline)
        if goal.max_value is not None:
            within = self.mcigen.median <= goal.max_value
            if within and self.extra.get("timed_out"):
                return None  # a lower bound under the target says nothing
            checks.append(within)
        if goal.requires is not None:
            checks.append(bool(self.extra.get(goal.requires)))
        return all(checks)

    def as_json(self) -> dict[str, Any]:
        return {
            "section": self.section,
            "row": self.name,
            "unit": self.unit,
            "mcigen": self.mcigen.as_json() if self.mcigen else None,
            "mci_py": self.mci_py.as_json() if self.mci_py else None,
            "baseline": self.baseline.as_json() if self.baseline else None,
            "baseline_name": self.baseline_name,
            "speedup_vs_mci_py": self.speedup,
            "vs_baseline": self.vs_baseline,
            "ratio_by_round": (
                self.ratio_by_round.as_json() if self.ratio_by_round else None
            ),
            "target": TARGETS[self.target].text if self.target else None,
            "met": self.met,
            "note": self.note,
            "extra": self.extra,
        }


def machine() -> dict[str, Any]:
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as info:
            for line in info:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    try:
        with open("/proc/meminfo", encoding="utf-8") as info:
            memory = f"{int(info.readline().split()[1]) // 1024 ** 2} GiB"
    except (OSError, ValueError, IndexError):
        memory = "?"
    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "memory": memory,
        "system": f"{platform.system()} {platform.release()}",
        "python": f"{platform.python_implementation()} {platform.python_version()}",
    }


def figure(value: float | None, unit: str) -> str:
    """A value with a readable unit: µs, ms or s for times; MiB; calls/s."""
    if value is None:
        return "-"
    if unit in ("us", "s"):
        us = value * 1e6 if unit == "s" else value
        if us < 1_000:
            return f"{us:.1f} µs" if us < 100 else f"{us:.0f} µs"
        if us < 1_000_000:
            ms = us / 1000
            return (
                f"{ms:.2f} ms"
                if ms < 10
                else f"{ms:.1f} ms" if ms < 100 else f"{ms:.0f} ms"
            )
        return f"{us / 1e6:.2f} s"
    if unit == "MiB":
        return f"{value:.0f} MiB"
    if unit == "calls/s":
        return f"{value:.0f}/s"
    return f"{value:g} {unit}"


def _ratio(value: float | None) -> str:
    if value is None:
        return "-"
    if value < 10:
        return f"{value:.2f}×"
    return f"{value:.1f}×" if value < 100 else f"{value:.0f}×"


def _spread(stats: Stats | None) -> str:
    if stats is None or stats.runs < 2:
        return "1 run" if stats else ""
    return f"±{stats.spread * 50:.0f}%"


COLUMNS = (
    ("row", 44, "<"),
    ("mcigen", 10, ">"),
    ("noise", 6, ">"),
    ("mci-py", 10, ">"),
    ("speedup", 7, ">"),
    ("hand-written", 10, ">"),
    ("×hand", 6, ">"),
    ("target", 27, "<"),
    ("", 6, "<"),
)


def _line(cells: list[str]) -> str:
    parts = []
    for (_, width, align), cell in zip(COLUMNS, cells, strict=True):
        parts.append(f"{cell:{align}{width}}")
    return " ".join(parts).rstrip()


def table(rows: list[Row], header: dict[str, Any]) -> str:
    """The readable table: one line per row, a section title before each section,
    notes after the row they explain."""
    out = [
        f"mcigen benchmarks, {header['date']} ({header['mode']} run, "
        f"{header['wall_seconds']:.0f} s)",
        f"machine: {header['machine']['cpu']}, {header['machine']['cores']} cores, "
        f"{header['machine']['memory']}, {header['machine']['system']}; "
        f"{header['machine']['python']}; mci-py {header['mci_py_version']}",
        "figures are medians; noise = ±half the (max - min) range over the runs, "
        "as % of the median; speedup = mci-py / mcigen; ×hand = mcigen / hand-written",
        "",
        _line([name for name, _, _ in COLUMNS]),
        _line(["-" * width for _, width, _ in COLUMNS]),
    ]
    section = None
    for row in rows:
        if row.section != section:
            section = row.section
            out.append(f"[{section}]")
        met = row.met
        status = (
            ""
            if row.target is None
            else "n/a" if met is None else "met" if met else "MISSED"
        )
        out.append(
            _line(
                [
                    row.name[:44],
                    figure(row.mcigen.median if row.mcigen else None, row.unit),
                    _spread(row.mcigen),
                    figure(row.mci_py.median if row.mci_py else None, row.unit),
                    _ratio(row.speedup),
                    figure(row.baseline.median if row.baseline else None, row.unit),
                    _ratio(row.vs_baseline),
                    TARGETS[row.target].text if row.target else "",
                    status,
                ]
            )
        )
        if row.note:
            out.append(f"    {row.note}")
    bases: dict[str, None] = {}
    for row in rows:
        if row.baseline_name:
            what = row.name.removesuffix(", sync").removesuffix(", async")
            scope = (
                f"{row.section}, {what}" if row.section == "per call" else row.section
            )
            bases[f"  {scope}: {row.baseline_name}"] = None
    if bases:
        out += ["", "hand-written baselines:", *bases]
    return "\n".join(out)


def write_json(path: Path, rows: list[Row], header: dict[str, Any]) -> None:
    payload = {**header, "rows": [row.as_json() for row in rows]}
    path.write_text(json.dumps(payload, indent=2, ensure_ascii=False) + "\n", "utf-8")
