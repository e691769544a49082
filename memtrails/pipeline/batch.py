"""Batching and bounded read-ahead: the stages that decide how much is ever in flight."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncGenerator, AsyncIterable
from typing import Any, TypeVar

from aiostream import pipable_operator, streamcontext
from aiostream.core import PipableOperator

__all__ = ["batch", "batched", "prefetch", "read_ahead"]

T = TypeVar("T")


async def _cancel(task: asyncio.Future[Any] | None) -> None:
    if task is None or task.done():
        return
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError, StopAsyncIteration):
        await task


IDLE = object()
"""What :func:`next_queued` returns when ``idle`` seconds passed with nothing queued."""


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
    """
    try:
        return queue.get_nowait()
    except asyncio.QueueEmpty:
        pass
    if holding and idle is not None:
        try:
            return await asyncio.wait_for(queue.get(), idle)
        except TimeoutError:
            return IDLE
    return await queue.get()


async def batched(
    source: AsyncIterable[T], size: int = 64, idle: float | None = 1.0
) -> AsyncGenerator[list[T], None]:
    """Group items into lists of ``size``; flush a partial list after ``idle`` seconds without input.

    One task this stage owns pulls the source into a queue of ``size`` items, so at most one
    list is read ahead of the list being filled and a slow consumer stops the producer
    (back-pressure). Items already queued are taken without waiting, so a fast source costs
    no timer per item; the idle flush keeps a trickling source (a cursor, a tail) from
    holding records back.

    Args:
        size: items per list, at least 1.
        idle: seconds to wait for the next item before flushing a partial list; None waits.
    """
    check_batching(size, idle)
    queue: asyncio.Queue[Any] = asyncio.Queue(maxsize=size)
    task = asyncio.ensure_future(_pump(source, queue))
    try:
        buf: list[T] = []
        while True:
            item = await next_queued(queue, bool(buf), idle)
            if item is IDLE:
                out, buf = buf, []
                yield out
                continue
            if item is _END:
                break
            if isinstance(item, _Failure):
                raise item.exc
            buf.append(item)
            if len(buf) >= size:
                out, buf = buf, []
                yield out
        if buf:
            yield buf
    finally:
        await _cancel(task)


_END = object()


async def _pump(source: AsyncIterable[Any], queue: asyncio.Queue[Any]) -> None:
    """Copy ``source`` into ``queue``, then an end mark (or the failure, for the consumer)."""
    try:
        async with streamcontext(source) as items:
            async for item in items:
                await queue.put(item)
    except Exception as exc:  # handed to the consumer, which re-raises it
        await queue.put(_Failure(exc))
        return
    await queue.put(_END)


async def read_ahead(source: AsyncIterable[T], depth: int = 1) -> AsyncGenerator[T, None]:
    """Read up to ``depth`` items ahead in a task this stage owns, so stages overlap.

    Placed after ``batch``, the next batch is parsed and scrubbed while the model embeds
    the current one. The task is cancelled and awaited when the consumer stops.
    """
    if depth < 1:
        raise ValueError("`depth` must be at least 1")
    queue: asyncio.Queue[Any] = asyncio.Queue(maxsize=depth)
    task = asyncio.ensure_future(_pump(source, queue))
    try:
        while True:
            item = await queue.get()
            if item is _END:
                break
            if isinstance(item, _Failure):
                raise item.exc
            yield item
    finally:
        await _cancel(task)


class _Failure:
    __slots__ = ("exc",)

    def __init__(self, exc: Exception) -> None:
        self.exc = exc


batch: PipableOperator[Any, [int, float | None], list[Any]] = pipable_operator(batched)
"""``batched`` as an aiostream operator: ``xs | batch.pipe(64, 1.0)``."""
prefetch: PipableOperator[Any, [int], Any] = pipable_operator(read_ahead)
"""``read_ahead`` as an aiostream operator: ``xs | prefetch.pipe(1)``."""
