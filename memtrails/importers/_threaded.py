"""Run a plain blocking generator in worker threads, a few items per hop, pulled on demand."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, Callable, Iterator
from typing import TypeVar

__all__ = ["iterate_in_thread"]

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
    the pipeline (back-pressure). The generator is closed in a thread when iteration stops.
    """
    if chunk < 1:
        raise ValueError("`chunk` must be at least 1")
    it = await asyncio.to_thread(make)
    try:
        while True:
            items = await asyncio.to_thread(_next_chunk, it, chunk)
            for item in items:
                yield item
            if len(items) < chunk:
                return
    finally:
        close = getattr(it, "close", None)
        if close is not None:
            await asyncio.to_thread(close)
