"""The JSON-RPC error owed to a line (stdio) or body (HTTP) that is not one message the SDK can take.

JSON-RPC 2.0, section 5.1: text that is not JSON gets -32700 Parse error; JSON that is not a valid
message gets -32600 Invalid Request, with the message's id when that id is readable and valid, else null.

Why we check before the SDK: its stdio transport hands the session a bare exception, which carries no id,
and its message union lets a request whose id is neither a string nor an integer (1.5, {"a": 1}, true,
null) pass as a notification, which is never answered: the client waits forever.
"""

from __future__ import annotations

import json

import pydantic_core
from mcp.types import (
    INVALID_REQUEST,
    PARSE_ERROR,
    ErrorData,
    JSONRPCError,
    jsonrpc_message_adapter,
)
from pydantic import ValidationError

RequestId = str | int


def invalid_message_error(text: str | bytes) -> JSONRPCError | None:
    """The error to answer `text` with, or None when it is one valid JSON-RPC message."""
    try:
        raw = pydantic_core.from_json(text)
    except ValueError as exc:
        return _error(None, PARSE_ERROR, f"Parse error: the message is not JSON ({str(exc)[:120]}); "
                      "send one JSON-RPC 2.0 object")
    if not isinstance(raw, dict):
        return _error(None, INVALID_REQUEST, "Invalid Request: a message is one JSON object; "
                      "batches (arrays) and bare values are not accepted")
    if "method" in raw and "id" in raw and not is_valid_id(raw["id"]):
        # The id itself is what is wrong, so the answer cannot name it (JSON-RPC: id null).
        return _error(None, INVALID_REQUEST, f"Invalid Request: id must be a string or an integer, not "
                      f"{_shown(raw['id'])}; leave id out only for a notification, which gets no answer")
    try:
        jsonrpc_message_adapter.validate_json(text, by_name=False)  # the very check the SDK's stdio makes
    except ValidationError:
        readable_id = raw.get("id") if is_valid_id(raw.get("id")) else None
        return _error(readable_id, INVALID_REQUEST, f"Invalid Request: {_what_is_wrong(raw)}")
    return None


def is_valid_id(value: object) -> bool:
    """MCP request ids are strings or integers (JSON-RPC's null and fractions are not allowed)."""
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def _what_is_wrong(raw: dict) -> str:
    if raw.get("jsonrpc") != "2.0":
        return f'jsonrpc must be "2.0", not {_shown(raw.get("jsonrpc"))}'
    if "method" in raw and not isinstance(raw["method"], str):
        return f"method must be a string, not {_shown(raw['method'])}"
    if "method" in raw and raw.get("params") is not None and not isinstance(raw["params"], dict):
        return f"params must be an object, not {_shown(raw['params'])}"
    if not {"method", "result", "error"} & raw.keys():
        return "a message needs a method (a request or a notification), or a result or an error (a response)"
    return "not a valid JSON-RPC 2.0 request, notification or response"


def _shown(value: object) -> str:
    return json.dumps(value)[:60]


def _error(request_id: RequestId | None, code: int, message: str) -> JSONRPCError:
    return JSONRPCError(jsonrpc="2.0", id=request_id, error=ErrorData(code=code, message=message))
