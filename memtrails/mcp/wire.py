"""The MCP server's stdio input: one request per line, bounded, in JSON the SDK can read.

The SDK's stdio transport drops a line its JSON-RPC model refuses: it logs it and sends no
answer, so a client waiting on the request's id waits forever. Every line therefore passes
through :func:`verdict` first; a line the SDK would refuse is answered here, as JSON-RPC 2.0
asks (-32700 for a line that is not JSON, -32600 for JSON that is not a request), and never
reaches the SDK. Notifications and responses, which have no answer, are dropped.

At the end of the input (a client that writes its requests and closes stdin, as a shell
pipe does) the SDK cancels the requests still running and answers each "Connection closed";
:class:`RequestLines` therefore ends only once every request it passed on is answered.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from typing import Any, BinaryIO

import anyio.to_thread
from mcp.types import (
    INVALID_REQUEST,
    PARSE_ERROR,
    ErrorData,
    JSONRPCError,
    JSONRPCNotification,
    JSONRPCRequest,
    jsonrpc_message_adapter,
)

__all__ = ["MAX_IN_FLIGHT", "MAX_REQUEST_BYTES", "RequestLines", "verdict"]

MAX_REQUEST_BYTES = 1 << 20
"""The largest request read (1 MiB, far above any tool call): a longer line is read past in
pieces, never held, and answered with an error naming its id."""

# A \\uXXXX escape of a surrogate that is not half of a pair. The SDK's JSON reader refuses
# the whole line for one; as U+FFFD the request is served rather than refused.
_LONE = re.compile(
    r"\\u[dD][89abAB][0-9a-fA-F]{2}(?!\\u[dD][c-fC-F][0-9a-fA-F]{2})"
    r"|(?<!\\u[dD][89abAB][0-9a-fA-F]{2})\\u[dD][c-fC-F][0-9a-fA-F]{2}"
)
# An id where the whole request cannot be read: an integer the SDK takes (not the first 18
# digits of a longer one, nor a float) or a short string.
_ID = re.compile(r'"id"\s*:\s*(-?\d{1,18}(?![\d.eE])|"(?:[^"\\]|\\.){0,200}")')
_HEAD = 4096  # where a request's id is looked for
_PIECE = 1 << 20
_QUEUED = 16  # answers waiting for stdout before reading stops
# Requests passed on and not yet answered before reading stops: a client that writes and
# never reads its answers holds at most this many (each a task and its answer), instead of
# one per line it writes. Far above what an agent has in flight; a client that writes a
# long batch before reading any answer only waits beyond this many.
MAX_IN_FLIGHT = 1024

_CANCELLED = "notifications/cancelled"

Verdict = str | list[JSONRPCError]
"""A line for the SDK, or the answers to send instead (none for a notification)."""


def well_formed(line: str) -> str:
    """Return the line with each lone surrogate escape written as U+FFFD's."""
    return _LONE.sub(r"\\ufffd", line) if "\\u" in line else line


def verdict(line: str) -> Verdict:
    """Return ``line`` when the SDK reads it as a message, else the errors that answer it."""
    line = well_formed(line)
    if not line.strip():
        return []  # a blank line asks nothing
    try:
        message = jsonrpc_message_adapter.validate_json(line, by_name=False)
    except ValueError:  # pydantic's ValidationError: the SDK would drop the line unanswered
        return _refusal(line)
    if isinstance(message, JSONRPCNotification) and _has_id(line):
        return _refusal(line)  # an id it cannot take (null, a float, an object): no answer
    return line


def _has_id(line: str) -> bool:
    """Whether a line the SDK reads as a notification has an id, and so wants an answer."""
    if '"id"' not in line:
        return False
    try:
        return "id" in json.loads(line)
    except (ValueError, RecursionError):
        return True  # unreadable here: :func:`_refusal` says why


def too_large(head: bytes) -> list[JSONRPCError]:
    """Answer a line over :data:`MAX_REQUEST_BYTES`, by the id in its first bytes if any."""
    found = _head_id(well_formed(head.decode("utf-8", "replace")))
    return [_invalid(found, f"request refused: over {MAX_REQUEST_BYTES:,} bytes (not read)")]


def _refusal(line: str) -> list[JSONRPCError]:
    try:
        message = json.loads(line)
    except json.JSONDecodeError:
        return [_error(None, PARSE_ERROR, "Parse error: the line is not JSON")]
    except (ValueError, RecursionError):  # a number of over 4,300 digits; nesting too deep
        reason = "nested too deep, or a number too long to read"
        return [_invalid(_head_id(line[:_HEAD]), reason)]
    if isinstance(message, list):
        # MCP has no batches since 2025-06-18: each request is answered, refused, by its id.
        ids = [_id_of(item) for item in message if isinstance(item, dict) and "id" in item]
        reason = "batches are not supported; send one request per line"
        return [_invalid(request_id, reason) for request_id in ids] or [_invalid(None, reason)]
    if not isinstance(message, dict):
        return [_invalid(None, "a request is a JSON object")]
    if "method" not in message and {"result", "error"} & message.keys():
        return []  # a response to a request of the server's: a response is not answered
    if "method" in message and "id" not in message:
        return []  # a notification: never answered, even when malformed
    return [_invalid(_id_of(message), _fault(message))]


def _fault(message: dict[str, Any]) -> str:
    """Say what makes ``message`` no request (the SDK's own message could echo the input)."""
    if message.get("jsonrpc") != "2.0":
        return '"jsonrpc" must be "2.0"'
    if _id_of(message) is None:
        return '"id" must be a string or an integer'
    if not isinstance(message.get("method"), str):
        return '"method" must be a string'
    if not isinstance(message.get("params", {}), dict):
        return '"params" must be an object'
    return "not a request MCP reads"


def _id_of(message: dict[str, Any]) -> int | str | None:
    """Return the message's id when the SDK could answer with it (not a float, object, null)."""
    found = message.get("id")
    if isinstance(found, str) or (type(found) is int and abs(found) < 1 << 63):
        return found
    return None


def _head_id(text: str) -> int | str | None:
    found = _ID.search(text)
    if found is None:
        return None
    try:
        value = json.loads(found.group(1))
    except ValueError:
        return None
    return value if isinstance(value, int | str) else None


def _invalid(request_id: int | str | None, reason: str) -> JSONRPCError:
    return _error(request_id, INVALID_REQUEST, f"Invalid Request: {reason}")


def _error(request_id: int | str | None, code: int, message: str) -> JSONRPCError:
    return JSONRPCError(jsonrpc="2.0", id=request_id, error=ErrorData(code=code, message=message))


class RequestLines:
    """Iterate over the requests of a binary stream (the server's stdin), in a worker thread.

    Only lines the SDK reads come out; the answers to the others wait on :attr:`replies`,
    for the server to write (:func:`memtrails.mcp.server.serve` does). The server tells
    :meth:`answered` the id of each answer it writes: at the end of the input the iteration
    stops only once the requests it passed on are answered (or cancelled by the client), or
    ``drain`` seconds later, when the SDK answers those left that the connection closed.
    While ``most`` requests wait for their answers, no more is read (for ``drain`` seconds
    at most: a request the SDK never answered must not stop the reading).
    """

    def __init__(
        self,
        raw: BinaryIO,
        limit: int = MAX_REQUEST_BYTES,
        *,
        drain: float = 300.0,
        most: int = MAX_IN_FLIGHT,
    ) -> None:
        self._raw = raw
        self._limit = limit
        self._drain = drain
        self._most = most
        self._answer, self.replies = anyio.create_memory_object_stream[JSONRPCError](_QUEUED)
        self._pending: Counter[int | str] = Counter()
        self._changed = anyio.Event()  # set, and replaced, whenever _pending changes

    def close(self) -> None:
        """Stop passing on refusals (the server stops, the input may not have ended)."""
        self._answer.close()

    def answered(self, request_id: int | str | None) -> None:
        """Note that the request ``request_id`` has its answer (a result or an error)."""
        self._done(request_id)

    def _done(self, request_id: Any) -> None:
        if not isinstance(request_id, int | str) or self._pending[request_id] <= 0:
            return
        self._pending[request_id] -= 1
        if self._pending[request_id] == 0:
            del self._pending[request_id]
        self._changed.set()
        self._changed = anyio.Event()

    def _passed(self, line: str) -> None:
        """Count a request the SDK will answer; a cancellation means it will not."""
        try:
            message = jsonrpc_message_adapter.validate_json(line, by_name=False)
        except ValueError:  # pragma: no cover - verdict let only readable lines through
            return
        if isinstance(message, JSONRPCRequest):
            self._pending[message.id] += 1
        elif isinstance(message, JSONRPCNotification) and message.method == _CANCELLED:
            self._done((message.params or {}).get("requestId"))

    async def _fewer_than(self, most: int) -> None:
        """Wait until fewer than ``most`` requests wait for answers, or ``drain`` seconds."""
        with anyio.move_on_after(self._drain):
            while self._pending.total() >= most:
                await self._changed.wait()

    def __aiter__(self) -> RequestLines:
        return self

    async def __anext__(self) -> str:
        while True:
            await self._fewer_than(self._most)
            read = await anyio.to_thread.run_sync(self._next, abandon_on_cancel=True)
            if read is None:
                self._answer.close()
                await self._fewer_than(1)
                raise StopAsyncIteration
            if isinstance(read, str):
                self._passed(read)
                return read
            for reply in read:
                await self._answer.send(reply)

    def _next(self) -> Verdict | None:
        raw = self._raw.readline(self._limit + 1)
        if not raw:
            return None
        if len(raw) > self._limit and not raw.endswith(b"\n"):
            head = raw[:_HEAD]
            while piece := self._raw.readline(_PIECE):
                if piece.endswith(b"\n"):
                    break
            return too_large(head)
        return verdict(raw.decode("utf-8", "replace"))
