"""The executors: what runs a tool, one folder per kind (:mod:`.http`, :mod:`.cli`,
:mod:`.mcp`; the kinds never import each other), the environment a started process
gets (:mod:`.child_env`), every command the process runs and how they are stopped
(:mod:`.running`), and sequences of tools (:mod:`.sequence`). The SDKs an
executor needs load with its first call."""
