"""Run a plain blocking generator in worker threads, a few items per hop, pulled on demand."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncGenerator, Callable, Iterator
from contextlib import aclosing
from typing import TypeVar

__all__ = ["chunks_in_thread", "iterate_in_thread"]

T = TypeVar("T")


def _next_chunk(it: Iterator[T], size: int) -> list[T]:
    chunk: list[T] = []
    for item in it:
        chunk.append(item)
        if len(chunk) >= size:
            break
    return chunk


async def iterate_in_thread(
    make: Callable[[], Iterator[T]], chunk: int = 64
) -> AsyncGenerator[T, None]:
    """Yield the items of ``make()`` one by one, running it in a worker thread.

    The blocking generator advances only when the consumer asks for more, at most ``chunk``
    items ahead, so reading and parsing never block the event loop and never run far ahead of
    the pipeline (back-pressure). It is made inside the first worker call and closed in a
    thread when iteration stops, after any step still running in a worker has finished (a
    cancelled consumer does not stop a thread mid-step, and a generator cannot be closed
    while it runs).
    """
    async with aclosing(chunks_in_thread(make, chunk)) as chunks:
        async for items in chunks:
            for item in items:
                yield item


async def chunks_in_thread(
    make: Callable[[], Iterator[T]], chunk: int = 64
) -> AsyncGenerator[list[T], None]:
    """Yield the items of ``make()`` in lists of at most ``chunk``, one worker call each.

    As :func:`iterate_in_thread`, for a consumer that takes a list at a time.
    """
    if chunk < 1:
        raise ValueError("`chunk` must be at least 1")
    lock = threading.Lock()
    made: list[Iterator[T]] = []

    def step() -> list[T]:
        with lock:
            if not made:
                made.append(make())
            return _next_chunk(made[0], chunk)

    def close() -> None:
        with lock:
            close = getattr(made[0], "close", None) if made else None
            if close is not None:
                close()

    try:
        while True:
            items = await asyncio.to_thread(step)
            if items:
                yield items
            if len(items) < chunk:
                return
    finally:
        # Shielded: even a consumer cancelled twice leaves the generator to be closed.
        await asyncio.shield(asyncio.to_thread(close))
