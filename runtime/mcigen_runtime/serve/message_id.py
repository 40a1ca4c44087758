"""A message's id as JSON-RPC allows it: a request's id is a string or an integer,
and a notification has none. A message with a method and any other id (``null``,
an object, ``true``, a number with a fraction) is refused as an Invalid Request, on
either transport: the SDK would read it as a notification and answer nothing."""

from __future__ import annotations

from collections.abc import Mapping

BAD_ID = "Invalid Request: id must be a string or an integer"


def has_bad_id(message: Mapping[str, object]) -> bool:
    """Whether ``message`` has a method and an id that no request may have."""
    if "method" not in message or "id" not in message:
        return False
    request_id = message["id"]
    return not isinstance(request_id, (str, int)) or isinstance(request_id, bool)
