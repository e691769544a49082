"""The MCP server's stdio input: one request per line, bounded, in JSON the SDK can read."""

from __future__ import annotations

import json
import re
from typing import BinaryIO

import anyio.to_thread

__all__ = ["MAX_REQUEST_BYTES", "RequestLines"]

MAX_REQUEST_BYTES = 1 << 20
"""The largest request read (1 MiB, far above any tool call): a longer line is read past in
pieces, never held, and answered with an error naming its id."""

# A \\uXXXX escape of a surrogate that is not half of a pair. The SDK's JSON reader refuses
# the whole line for one, and the request got no answer at all; as U+FFFD it is answered.
_LONE = re.compile(
    r"\\u[dD][89abAB][0-9a-fA-F]{2}(?!\\u[dD][c-fC-F][0-9a-fA-F]{2})"
    r"|(?<!\\u[dD][89abAB][0-9a-fA-F]{2})\\u[dD][c-fC-F][0-9a-fA-F]{2}"
)
_ID = re.compile(rb'"id"\s*:\s*(-?\d{1,18}|"(?:[^"\\]|\\.){0,200}")')
_HEAD = 4096  # where a request's id is looked for
_PIECE = 1 << 20


def well_formed(line: str) -> str:
    """Return the line with each lone surrogate escape written as U+FFFD's."""
    return _LONE.sub(r"\\ufffd", line) if "\\u" in line else line


def too_large(head: bytes) -> str:
    """Return a request the server answers with an error: a method named for the refusal."""
    found = _ID.search(head)
    request_id = json.loads(found.group(1)) if found else None
    return json.dumps(
        {
            "jsonrpc": "2.0",
            "id": request_id,
            "method": f"request refused: over {MAX_REQUEST_BYTES:,} bytes (not read)",
        }
    )


class RequestLines:
    """Iterate over the requests of a binary stream (the server's stdin), in a worker thread."""

    def __init__(self, raw: BinaryIO, limit: int = MAX_REQUEST_BYTES) -> None:
        self._raw = raw
        self._limit = limit

    def __aiter__(self) -> RequestLines:
        return self

    async def __anext__(self) -> str:
        line = await anyio.to_thread.run_sync(self._next, abandon_on_cancel=True)
        if line is None:
            raise StopAsyncIteration
        return line

    def _next(self) -> str | None:
        raw = self._raw.readline(self._limit + 1)
        if not raw:
            return None
        if len(raw) > self._limit and not raw.endswith(b"\n"):
            head = raw[:_HEAD]
            while piece := self._raw.readline(_PIECE):
                if piece.endswith(b"\n"):
                    break
            return too_large(head) + "\n"
        return well_formed(raw.decode("utf-8", "replace"))
