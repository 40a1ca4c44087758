"""Tool calls as operations: over MCP (``status``, ``await``, ``cancel``, the
window before a call goes on in the background, progress) and in Python
(``pkg.operations.start``)."""
