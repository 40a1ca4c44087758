"""What ``--from`` calls each input format, in the order ``formats.FORMATS`` tries
them: the command line offers them without loading the formats' readers."""

from __future__ import annotations

FORMAT_NAMES = ("mtdf", "broker", "mci")
