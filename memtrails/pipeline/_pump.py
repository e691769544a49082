"""The queue between two stages: a pump task the consumer owns, and how it is torn down."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterable, AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from aiostream import streamcontext

__all__ = ["END", "IDLE", "Failure", "check_batching", "next_queued", "pumping"]

_log = logging.getLogger("memtrails.pipeline")

END = object()
"""What the pump puts in the queue after the source's last item."""

IDLE = object()
"""What :func:`next_queued` returns when ``idle`` seconds passed with nothing queued."""


class Failure:
    """The source's exception, queued for the consumer to raise in its own task."""

    __slots__ = ("exc",)

    def __init__(self, exc: Exception) -> None:
        self.exc = exc


def check_batching(size: int, idle: float | None) -> None:
    """Refuse a batch size under 1 or an idle time that is not positive (None waits)."""
    if size < 1:
        raise ValueError("`size` must be at least 1")
    if idle is not None and idle <= 0:
        raise ValueError("`idle` must be positive or None")


async def next_queued(queue: asyncio.Queue[Any], holding: bool, idle: float | None) -> Any:
    """Return the next item of ``queue``: at once if one is queued, else when one comes.

    While the caller holds a partial list (``holding``), waiting stops after ``idle`` seconds and
    :data:`IDLE` is returned, so the list is flushed: a fast source costs no timer per item,
    and a trickling one (a cursor, a tail) does not hold records back.

    Not ``asyncio.wait_for``: in Python 3.11 it swallows a cancellation that comes as the item
    does, and a teardown (strict mode's first error, a cancelled import) then waited for ever
    on a stage that went on filling a queue nobody read. ``asyncio.timeout`` lets it through.
    """
    try:
        return queue.get_nowait()
    except asyncio.QueueEmpty:
        pass
    if holding and idle is not None:
        try:
            async with asyncio.timeout(idle):
                return await queue.get()
        except TimeoutError:
            return IDLE
    return await queue.get()


async def _pump(source: AsyncIterable[Any], queue: asyncio.Queue[Any]) -> None:
    """Copy ``source`` into ``queue``, then :data:`END` (or the failure, for the consumer).

    Once the pump is cancelled (its consumer left), nothing more goes into the queue: nobody
    reads it, and a put into a full queue would wait for ever. A source that catches its
    ``CancelledError`` and goes on yielding (a retry loop written with ``except
    asyncio.CancelledError: continue``) is stopped at its next item, with a warning.
    """
    me = asyncio.current_task()
    assert me is not None  # pumping runs it as a task
    last: object = END
    try:
        async with streamcontext(source) as items:
            async for item in items:
                if me.cancelling():
                    _log.warning(
                        "a source went on after its cancellation; it is closed now "
                        "(an async generator should let asyncio.CancelledError through)"
                    )
                    raise asyncio.CancelledError
                await queue.put(item)
    except Exception as exc:  # handed to the consumer, which re-raises it
        last = Failure(exc)
    if not me.cancelling():
        await queue.put(last)


@asynccontextmanager
async def pumping(source: AsyncIterable[Any], depth: int) -> AsyncIterator[asyncio.Queue[Any]]:
    """Run a task that pulls ``source`` into a queue of ``depth`` items, for the block's length.

    The task belongs to the block, as a task group's child does: leaving the block (the
    consumer stopped, failed or was cancelled) cancels the task and waits until it has
    finished closing its source. A cancellation of the consumer that arrives while it waits
    is not swallowed: the wait goes on until the child is done (no orphan), then the
    cancellation propagates.
    """
    queue: asyncio.Queue[Any] = asyncio.Queue(maxsize=depth)
    task = asyncio.ensure_future(_pump(source, queue))
    try:
        yield queue
    finally:
        await _finish(task)


async def _finish(task: asyncio.Future[None]) -> None:
    cancelled = False
    task.cancel()
    while not task.done():
        try:
            await asyncio.wait([task])
        except asyncio.CancelledError:
            cancelled = True  # ours: wait for the child first, then let it go on
            task.cancel()
    if not task.cancelled():
        task.exception()  # retrieved: _pump hands every Exception to the consumer
    if cancelled:
        raise asyncio.CancelledError
