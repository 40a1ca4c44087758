"""JSON read by pydantic's parser, which the runtime has loaded already: importing
``json`` costs ~5 M instructions (it compiles its regular expressions), most of what
a cached ``MCIClient`` would add to a package's start by reading its own records
and manifest.
"""

from __future__ import annotations

from typing import Any

from pydantic_core import from_json


def parsed(text: str | bytes) -> Any:
    """What ``json.loads(text)`` gives, or its ValueError: text pydantic's parser
    refuses (an escaped lone surrogate, nesting past its 200 levels, UTF-16) is
    read again by ``json``, which says whether it is JSON."""
    try:
        return from_json(text)
    except ValueError:
        import json

        return json.loads(text)
