"""Where a schema's toolsets and MCP caches are found unless it says: apart from
the IR so that ``MCIClient``'s cached path, which keys its cache on that directory,
loads nothing of the compiler."""

DEFAULT_LIBRARY_DIR = "./mci"
"""Relative to the schema."""
