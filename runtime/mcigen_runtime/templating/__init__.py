"""Templating: the one grammar of MCI templates (:mod:`.syntax`, :mod:`.parser`), and
what renders it at call time: file contents compiled once per (path, mtime) into
Python (:mod:`.compiler`, :mod:`.files`), the lookups and comparisons compiled
templates make (:mod:`.lookup`), and the budget their output is written into
(:mod:`.budget`)."""
