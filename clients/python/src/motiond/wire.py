"""Constants of the socket protocol and the encoding of requests (docs/PROTOCOL.md §1-3)."""

from __future__ import annotations

import json
import os
from typing import Any

#: Where motiond listens unless told otherwise (``Wire.defaultSocketPath``).
DEFAULT_SOCKET = "/run/motiond/motiond.sock"
#: The protocol version this client speaks (``hello.protocol``).
PROTOCOL_VERSION = 1
#: The shortest interval the protocol grants, seconds (``Wire.minimumInterval``: 100 Hz).
MINIMUM_INTERVAL = 0.01
#: The longest line either side may send, bytes including the line feed.
MAXIMUM_LINE_LENGTH = 65_536


def resolve_socket(path: "str | None" = None) -> str:
    """The socket to use: ``path``, else ``$MOTIOND_SOCKET``, else :data:`DEFAULT_SOCKET`."""
    return path or os.environ.get("MOTIOND_SOCKET") or DEFAULT_SOCKET


def encode_request(op: str, request_id: int, fields: "dict[str, Any]") -> bytes:
    """One request line: ``{"op":…,"id":…,…fields}`` and its line feed (``None`` fields left out)."""
    body = {"op": op, "id": request_id, **{k: v for k, v in fields.items() if v is not None}}
    return (json.dumps(body, separators=(",", ":"), allow_nan=False) + "\n").encode("utf-8")
