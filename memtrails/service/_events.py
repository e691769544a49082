"""The OS's change events (inotify, FSEvents, ...) for a watched path, in debounced bursts."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncGenerator, Callable
from contextlib import aclosing
from pathlib import Path
from typing import Any

__all__ = ["os_events"]

_log = logging.getLogger("memtrails.service")
_SETTLE = 0.2  # seconds for the watcher to start before the first look


async def os_events(
    roots: list[Path],
    wanted: Callable[[str], bool],
    debounce: float,
    ready: asyncio.Event,
    fallback: Callable[[], AsyncGenerator[set[str], None]],
    recursive: bool = True,
) -> AsyncGenerator[set[str], None]:
    """Yield the changed paths (those ``wanted``) after each debounced burst of OS events.

    When the OS's watcher cannot start (a limit on inotify watches, say), the paths from
    ``fallback`` (a poll) are yielded instead. ``recursive``: watch the roots' subfolders too.
    """
    import watchfiles

    stop = asyncio.Event()

    def keep(change: Any, path: str) -> bool:
        return wanted(path)

    # watchfiles starts its watcher on the first iteration and does not say when it is up.
    settle = asyncio.get_running_loop().call_later(_SETTLE, ready.set)
    try:
        async for changes in watchfiles.awatch(
            *roots,
            watch_filter=keep,
            debounce=int(debounce * 1000),
            step=50,
            stop_event=stop,
            rust_timeout=500,  # how soon a cancellation is seen
            recursive=recursive,
        ):
            yield {path for _, path in changes}
    except (OSError, RuntimeError) as exc:
        _log.warning("watching %s: %s; polling instead", roots[0], exc)
        settle.cancel()
        async with aclosing(fallback()) as polled:
            async for changed in polled:
                yield changed
    finally:
        settle.cancel()
        stop.set()
