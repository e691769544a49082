"""``memtrails serve``: one process that owns a memory folder and serves it on one address."""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import Callable, Generator, Sequence
from pathlib import Path
from types import FrameType
from urllib.parse import quote

import uvicorn

from ..folder.manifest import opening_line
from ..folder.opening import open_folder
from ..memory import Memory
from ._http import head_deadline_protocol, listening_socket
from .app import build_app
from .auth import LOOPBACK
from .discovery import SERVICE_ROLE, ensure_token, remove_service_file, write_service_file
from .jobs import Jobs
from .watch import Watched, WatchedPath, save_watched

__all__ = ["DEFAULT_PORT", "serve"]

DEFAULT_PORT = 8765


class _Server(uvicorn.Server):
    """uvicorn's server, telling the service when a signal asks it to stop.

    SIGTERM and SIGINT set ``should_exit`` (uvicorn's own handling); the service then
    cancels its running imports at once, so that streams following them end and the stop
    does not wait for an import to finish. Unlike uvicorn, the signal is not raised again
    after the clean stop: the process exits 0.
    """

    def __init__(self, config: uvicorn.Config, on_exit: Callable[[], None]) -> None:
        super().__init__(config)
        self._on_exit = on_exit
        self._loop: asyncio.AbstractEventLoop | None = None

    async def serve(self, sockets: list[socket.socket] | None = None) -> None:
        self._loop = asyncio.get_running_loop()
        await super().serve(sockets)

    @contextlib.contextmanager
    def capture_signals(self) -> Generator[None, None, None]:
        import signal
        import threading

        if threading.current_thread() is not threading.main_thread():
            yield
            return
        handled = (signal.SIGINT, signal.SIGTERM)
        previous = {sig: signal.signal(sig, self.handle_exit) for sig in handled}
        try:
            yield
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        super().handle_exit(sig, frame)
        if self._loop is not None:
            self._loop.call_soon_threadsafe(self._on_exit)


async def serve(
    home: Path,
    *,
    host: str = "127.0.0.1",
    port: int = DEFAULT_PORT,
    threads: int | None = None,
    mcp_writes: bool = False,
    say: Callable[[str], None] = print,
    log_level: str = "warning",
    watch: Sequence[WatchedPath] = (),
) -> None:
    """Own the memory folder ``home`` and serve it until SIGTERM or SIGINT.

    Opens the folder (creating it when new, catching the index up after a crash), writes
    the bearer token (``service.token``, 0600) at the first start and ``service.json``
    (pid, host, port; removed on a clean stop), and serves ``/v1/...`` and ``/mcp``.

    Args:
        home: the memory folder.
        host: the address to listen on (loopback unless the caller chose otherwise).
        port: the port (0: any free one).
        threads: model threads.
        mcp_writes: also offer the MCP ``add`` and ``forget`` tools.
        say: where the one line saying where the service listens goes.
        log_level: uvicorn's log level.
        watch: paths to add to the watched set (kept in the folder): each is imported now
            and again whenever it changes, until the service stops.

    Raises:
        MemoryLockedError: another process (an import, another service) holds the folder.
        OSError: the address cannot be listened on.
    """
    folder = await open_folder(home, threads=threads, role=SERVICE_ROLE)
    memory = Memory(folder)
    try:
        for repair in memory.repairs:
            say(opening_line(repair))
        await memory.catch_up()
        token = await asyncio.to_thread(ensure_token, home)
        sock = listening_socket(host, port)
        port = sock.getsockname()[1]
        stopping = asyncio.Event()
        jobs = Jobs(memory)
        watched = Watched(home, jobs)
        for path in watch:
            watched.paths[path.path] = path
        if watch:
            await asyncio.to_thread(save_watched, home, list(watched.paths.values()))

        def stop() -> None:
            stopping.set()
            jobs.cancel_all()

        app = build_app(
            memory,
            jobs,
            stopping,
            token=token,
            host=host,
            port=port,
            mcp_writes=mcp_writes,
            watched=watched,
        )
        config = uvicorn.Config(
            app,
            # uvicorn's own handlers print what they log as it is (a traceback may quote a
            # request): its loggers go to the command's escaping handler instead
            log_config=None,
            log_level=log_level,
            lifespan="on",
            http=head_deadline_protocol(),
            timeout_graceful_shutdown=30,
            access_log=False,
        )
        server = _Server(config, stop)
        try:
            await asyncio.to_thread(write_service_file, home, host, port)
            shown = f"[{host}]" if ":" in host else host
            say(
                f"memtrails serve: {home} on http://{shown}:{port} (API /v1, MCP /mcp); "
                f"bearer token in {home / 'service.token'}"
            )
            say(f"web page: http://{shown}:{port}/login?token={quote(token, safe='')}")
            if host not in LOOPBACK:
                say(
                    f"warning: listening on {host}, beyond this machine: the bearer token is "
                    "then the only guard, and the traffic is not encrypted"
                )
            await server.serve(sockets=[sock])
        finally:
            sock.close()
            await asyncio.to_thread(remove_service_file, home)
    finally:
        await memory.aclose()
