"""The service's HTTP/1.1 connections: a request's head must arrive within a deadline."""

from __future__ import annotations

import asyncio
import socket
from typing import Any

from uvicorn.protocols.http.h11_impl import H11Protocol

__all__ = ["HEAD_DEADLINE", "head_deadline_protocol", "listening_socket"]

# Seconds a connection has to send a whole request head (its request line and headers),
# counted from when it opens or its last response ends. uvicorn sets no such limit: a client
# sending a header line now and then (slowloris), or nothing at all, held its connection and
# socket for ever. The body is not timed: the service reads a streamed import's body only as
# the pipeline takes records, so a body may rightly wait for minutes.
HEAD_DEADLINE = 15.0


def head_deadline_protocol(seconds: float = HEAD_DEADLINE) -> type[H11Protocol]:
    """Return uvicorn's h11 protocol with a deadline of ``seconds`` on each request's head.

    A connection still without a whole head at the deadline is closed. The deadline is
    absolute, not renewed by each byte: a byte every few seconds must not keep it open.
    """

    class HeadDeadline(H11Protocol):
        _deadline: asyncio.TimerHandle | None = None

        def connection_made(self, transport: Any) -> None:
            super().connection_made(transport)
            self._arm()

        def data_received(self, data: bytes) -> None:
            waiting = self._waiting_for_head()
            super().data_received(data)
            if waiting and not self._waiting_for_head():
                self._disarm()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if not self.transport.is_closing() and self._waiting_for_head():
                self._arm()

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            super().connection_lost(exc)

        def _waiting_for_head(self) -> bool:
            return self.cycle is None or self.cycle.response_complete

        def _arm(self) -> None:
            self._disarm()
            self._deadline = self.loop.call_later(seconds, self._late)

        def _disarm(self) -> None:
            if self._deadline is not None:
                self._deadline.cancel()
                self._deadline = None

        def _late(self) -> None:
            self._deadline = None
            if self._waiting_for_head() and not self.transport.is_closing():
                self.transport.close()

    return HeadDeadline


def listening_socket(
    host: str, port: int, option: str = "--port", *, listen: bool = True
) -> socket.socket:
    """Return a socket bound to ``host:port`` (0: a free port), for uvicorn to serve.

    It listens at once unless ``listen`` is False (uvicorn's server then starts it): a
    caller may say where it listens before a client can connect.

    Raises:
        OSError: it cannot listen there; the message names the address, why, and that
            ``option`` chooses another port.
    """
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        if listen:
            sock.listen(128)
        sock.setblocking(False)
    except OSError as exc:
        sock.close()
        raise OSError(
            exc.errno, f"cannot listen on {host}:{port} ({exc.strerror}); choose another {option}"
        ) from None
    return sock
