"""``python -m PKG``: the package's command line (list, describe, call, doctor, serve,
broker)."""
