"""The frontends: one folder per input format (``mci/``, ``mtdf/``, ``broker/``),
all reading through the located JSON/YAML reader beside them (``source``), and the
registry that chooses among them (``formats``)."""
