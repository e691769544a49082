"""Batching and bounded read-ahead: the stages that decide how much is ever in flight."""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterable
from typing import Any, TypeVar

from aiostream import pipable_operator
from aiostream.core import PipableOperator

from ._pump import END, IDLE, Failure, check_batching, next_queued, pumping

__all__ = ["batch", "batched", "prefetch", "read_ahead"]

T = TypeVar("T")


async def batched(
    source: AsyncIterable[T], size: int = 64, idle: float | None = 1.0
) -> AsyncGenerator[list[T], None]:
    """Group items into lists of ``size``; flush a partial list after ``idle`` seconds without input.

    One task this stage owns pulls the source into a queue of ``size`` items, so at most one
    list is read ahead of the list being filled and a slow consumer stops the producer
    (back-pressure). Items already queued are taken without waiting, so a fast source costs
    no timer per item; the idle flush keeps a trickling source (a cursor, a tail) from
    holding records back.

    As an operator, ``memtrails.extend.batch``: ``xs | batch.pipe(size, idle)``.

    Args:
        source: any async iterable.
        size: items per list, at least 1.
        idle: seconds to wait for the next item before flushing a partial list; None waits.

    Yields:
        Lists of ``size`` items, and a shorter one at the end or after an idle wait.

    Raises:
        ValueError: ``size`` is under 1, or ``idle`` is not positive.

    Example:

        >>> import asyncio
        >>> from aiostream import stream
        >>> from memtrails.extend import batch
        >>> async def lists():
        ...     return await (stream.range(7) | batch.pipe(3, 1.0) | stream.list.pipe())
        >>> asyncio.run(lists())
        [[0, 1, 2], [3, 4, 5], [6]]
    """
    check_batching(size, idle)
    async with pumping(source, size) as queue:
        buf: list[T] = []
        while True:
            item = await next_queued(queue, bool(buf), idle)
            if item is IDLE:
                out, buf = buf, []
                yield out
                continue
            if item is END:
                break
            if isinstance(item, Failure):
                raise item.exc
            buf.append(item)
            if len(buf) >= size:
                out, buf = buf, []
                yield out
        if buf:
            yield buf


async def read_ahead(source: AsyncIterable[T], depth: int = 1) -> AsyncGenerator[T, None]:
    """Read up to ``depth`` items ahead in a task this stage owns, so stages overlap.

    Placed after ``batch``, the next batch is parsed and scrubbed while the model embeds
    the current one. The task is cancelled and awaited when the consumer stops. As an
    operator, ``memtrails.extend.prefetch``: ``xs | prefetch.pipe(depth)``.

    Args:
        source: any async iterable.
        depth: how many items may wait, read, for the consumer; at least 1.

    Yields:
        The items of ``source``, in order; an error of ``source`` is raised where it came.

    Raises:
        ValueError: ``depth`` is under 1.

    Example: while the consumer works on its first item, the task reads on, and stops with
    ``depth`` items queued and one more waiting to be queued:

        >>> import asyncio
        >>> from aiostream import stream
        >>> from memtrails.extend import prefetch
        >>> read = []
        >>> async def source():
        ...     for i in range(10):
        ...         read.append(i)
        ...         yield i
        >>> async def first():
        ...     async with (stream.iterate(source()) | prefetch.pipe(1)).stream() as items:
        ...         async for item in items:
        ...             await asyncio.sleep(0.01)  # the consumer's work: the task reads meanwhile
        ...             return item, read
        >>> asyncio.run(first())
        (0, [0, 1, 2])
    """
    if depth < 1:
        raise ValueError("`depth` must be at least 1")
    async with pumping(source, depth) as queue:
        while True:
            item = await queue.get()
            if item is END:
                break
            if isinstance(item, Failure):
                raise item.exc
            yield item


batch: PipableOperator[Any, [int, float | None], list[Any]] = pipable_operator(batched)
"""``batched`` as an aiostream operator: ``xs | batch.pipe(64, 1.0)``."""
prefetch: PipableOperator[Any, [int], Any] = pipable_operator(read_ahead)
"""``read_ahead`` as an aiostream operator: ``xs | prefetch.pipe(1)``."""
