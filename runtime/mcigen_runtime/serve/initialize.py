"""The params of an ``initialize`` request as lenient servers read them, so that a
quickstart's ``{"method": "initialize", "params": {}}`` is answered:

- a missing ``protocolVersion`` asks for the newest version the MCP SDK negotiates
  through ``initialize`` (the server then answers with it);
- missing ``capabilities`` are ``{}``, a missing ``clientInfo`` (or its ``name`` or
  ``version``) is empty;
- a field of the wrong type is still an error, one that names the field:
  ``Invalid params: protocolVersion must be a string``.

Used by the HTTP edge (``http_exchange``) and on stdio (``stdio_exchange``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .wire import LATEST_HANDSHAKE_VERSION

if TYPE_CHECKING:
    from pydantic import ValidationError

_EXPECTED = {
    "string_type": "a string",
    "model_type": "an object",
    "dict_type": "an object",
    "bool_type": "a boolean",
    "bool_parsing": "a boolean",
    "int_type": "an integer",
    "int_parsing": "an integer",
    "list_type": "an array",
}
"""pydantic's error types, as what the field must be."""


class InitializeParamsError(ValueError):
    """``initialize`` params that cannot be read even leniently; the message names
    the field and is the JSON-RPC error's message (code ``-32602``)."""


def lenient_initialize(params: object) -> dict[str, Any]:
    """``params`` with the missing fields filled in (see the module docs); other
    fields are kept as they are. Raises :class:`InitializeParamsError`."""
    from mcp_types import InitializeRequestParams
    from pydantic import ValidationError

    filled = filled_initialize(params)
    try:
        InitializeRequestParams.model_validate(filled, by_name=False)
    except ValidationError as error:
        raise InitializeParamsError(_first_problem(error)) from None
    return filled


def filled_initialize(params: object) -> dict[str, Any]:
    """``params`` with the missing fields filled in, not checked further (no SDK
    needed). Raises :class:`InitializeParamsError` when they are no object."""
    if params is None:
        params = {}
    if not isinstance(params, dict):
        raise InitializeParamsError("Invalid params: params must be an object")
    filled: dict[str, Any] = {
        "protocolVersion": LATEST_HANDSHAKE_VERSION,
        "capabilities": {},
        **params,
    }
    client = filled.setdefault("clientInfo", {})
    if isinstance(client, dict):
        filled["clientInfo"] = {"name": "", "version": "", **client}
    return filled


def _first_problem(error: ValidationError) -> str:
    problem = error.errors()[0]
    field = ".".join(str(part) for part in problem["loc"])
    expected = _EXPECTED.get(problem["type"])
    if expected is None:
        return f"Invalid params: {field}: {problem['msg']}"
    return f"Invalid params: {field} must be {expected}"
