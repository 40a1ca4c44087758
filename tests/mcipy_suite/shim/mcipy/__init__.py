"""``mcipy`` as mci-py's own tests import it, served by ``mcigen.MCIClient``.

Only the public client is mcigen's; the internal classes some tests import exist
here so their modules import, and the tests that use them are skipped
(``mcipy_public_api.py``)."""

from mcigen_runtime.client import ExecutionResult, Tool

from mcigen import MCIClient, MCIClientError

__all__ = ["ExecutionResult", "MCIClient", "MCIClientError", "Tool"]
