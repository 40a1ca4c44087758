"""Where things are: the repository, the two interpreters, the test helpers the benchmarks reuse."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests.http_server import LoopbackServer as _TestServer  # noqa: E402
from tests.mcp_servers import TOY_SERVER  # noqa: E402
from tests.oracle import oracle_python  # noqa: E402

PYTHON = Path(sys.executable)
"""The interpreter of the mcigen venv: runs mcigen and the generated packages."""

RESULTS = ROOT / "benchmarks" / "results.json"


class LoopbackServer(_TestServer):
    """The tests' loopback HTTP server, with a listen backlog for 16 callers connecting
    at once (the default of 5 drops handshakes, and a dropped one stalls a call for
    seconds)."""

    request_queue_size = 128


__all__ = ["PYTHON", "RESULTS", "ROOT", "TOY_SERVER", "LoopbackServer", "oracle_python"]
