"""Clean-up that runs to its end when its caller is cancelled."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any, TypeVar

__all__ = ["to_the_end"]

T = TypeVar("T")


async def to_the_end(work: Coroutine[Any, Any, T]) -> T:
    """Await ``work`` to its end, then raise any cancellation that came meanwhile.

    A close stopped half-way is worse than one that finishes late: a lock still held keeps
    every other process out, and a shard still closing in a thread meets the next opener.
    The work runs as a task of its own that each cancellation leaves alone (it is awaited
    here to the end: no orphan), however many times the caller is cancelled.

    Example:
        >>> import asyncio
        >>> async def close() -> str:
        ...     await asyncio.sleep(0.01)
        ...     return "closed"
        >>> asyncio.run(to_the_end(close()))
        'closed'
    """
    task = asyncio.ensure_future(work)
    cancelled = False
    while True:
        try:
            result = await asyncio.shield(task)
        except asyncio.CancelledError:
            if task.done():
                raise  # the work itself was cancelled, not its caller
            cancelled = True
            continue
        break
    if cancelled:
        raise asyncio.CancelledError
    return result
