"""The input formats mcigen reads, in the one place that knows them: how each is
recognised, lowered to the IR and named in messages. A new format is a folder
beside ``mci/``, ``mtdf/`` and ``broker/`` and an entry in ``FORMATS``."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from .. import ir
from ..diagnostics import Diagnostics
from .broker import holds_broker, lower_broker
from .mtdf import holds_mtdf


@dataclass(frozen=True)
class Reading:
    """How an input is read."""

    whitespace: str = "compat"
    """How directive templates treat whitespace: "compat" (mci-py's) or "trim"."""
    skip_invalid: bool = False
    """Leave out a tool file of a folder that does not load, as Ahma does (MTDF)."""
    environment: Mapping[str, str] | None = None
    """What ``${NAME}`` in a broker config's strings reads when it is built (None:
    the build's own environment); a source's command reads it at run time."""


Lowering = Callable[[Path, Reading], tuple[ir.Schema | None, Diagnostics]]
"""The schema at a path, read as ``Reading`` says, and the diagnostics; no schema
when one of them is an error."""


@dataclass(frozen=True)
class Format:
    name: str
    """What ``--from`` calls it, and what a built package records."""
    label: str
    """The format as messages name it: "an MCI schema"."""
    recognise: Callable[[Path], bool]
    lower: Lowering
    folder_holds: str | None = None
    """What a folder of this format holds ("MTDF tool file"); None when an input
    of the format is one file."""


def _lower_mtdf(path: Path, reading: Reading) -> tuple[ir.Schema | None, Diagnostics]:
    # late, as _lower_mci: recognising an input (a cached serve) needs no lowering
    from .mtdf.lower import lower_mtdf

    return lower_mtdf(path, reading.skip_invalid)


def _lower_mci(path: Path, reading: Reading) -> tuple[ir.Schema | None, Diagnostics]:
    # late: the MCI reader loads jsonschema, and a cached serve reads no input
    from .mci import load_schema

    return load_schema(path, whitespace=reading.whitespace, partial=True)


MTDF = Format(
    "mtdf",
    "MTDF tool files",
    holds_mtdf,
    _lower_mtdf,
    folder_holds="MTDF tool file",
)
BROKER = Format(
    "broker",
    "a broker config",
    holds_broker,
    lambda path, reading: lower_broker(path, reading.environment),
)
MCI = Format(
    "mci",
    "an MCI schema",
    lambda _path: True,
    _lower_mci,
)

FORMATS = (MTDF, BROKER, MCI)
"""In the order they are tried: the first that recognises an input reads it, and
an MCI schema is whatever no other format recognises."""


def recognise(path: Path) -> Format:
    return next(known for known in FORMATS if known.recognise(path))


def format_named(name: str) -> Format:
    return next(known for known in FORMATS if known.name == name)
