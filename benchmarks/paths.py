"""Where things are: the repository, the two interpreters, the test helpers the benchmarks reuse."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests.mcp_servers import TOY_SERVER  # noqa: E402
from tests.oracle import oracle_python  # noqa: E402

PYTHON = Path(sys.executable)
"""The interpreter of the mcigen venv: runs mcigen and the generated packages."""

RESULTS = ROOT / "benchmarks" / "results.json"


__all__ = ["PYTHON", "RESULTS", "ROOT", "TOY_SERVER", "oracle_python"]
