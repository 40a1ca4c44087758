"""``mcigen build``, paused at one step of the output swap, so that a test can
SIGKILL a real build process exactly there. Prints the step's name, then sleeps.

    python -m tests.security.paused_build exchanged|retired SCHEMA OUT

``exchanged``: right after the atomic exchange (Linux), before the old package is
removed. ``retired``: on the two-rename path (forced), after the package was moved
aside and before the new one is moved in.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from mcigen import cli, output


def _pause(step: str) -> None:
    print(step, flush=True)
    time.sleep(600)


def main(step: str, schema: str, out: str) -> int:
    if step == "exchanged":
        # the names output.py calls are patched where it looks them up
        exchange = output.exchange  # type: ignore[attr-defined]

        def exchange_then_pause(first: Path, second: Path) -> bool:
            assert exchange(first, second)
            _pause(step)
            return True

        output.exchange = exchange_then_pause  # type: ignore[attr-defined]
    else:
        replace = os.replace

        def replace_then_pause(source: str | Path, target: str | Path) -> None:
            replace(source, target)
            if Path(source) == Path(out):
                _pause(step)

        output.exchange = lambda first, second: False  # type: ignore[attr-defined]
        os.replace = replace_then_pause  # type: ignore[assignment]
    return cli.main(["build", schema, "-o", out])


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
