"""Custom sources: any iterable or async iterable of records, mappings or database rows."""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator, Iterable
from typing import Any

from .._threads import iterate_in_thread

__all__ = ["from_iterable"]


async def from_iterable(
    items: Iterable[Any] | AsyncIterable[Any], *, in_thread: bool = False, chunk: int = 256
) -> AsyncIterator[Any]:
    """Yield the items of a plain or async iterable, pulled only as the pipeline asks.

    ``Memory.ingest`` accepts iterables directly; use this to read a blocking iterable (a
    DB-API cursor, a large generator) in worker threads so the event loop stays free.

    Args:
        items: records, ``RecordError``s, mappings with record fields, or rows with
            ``keys()`` (``sqlite3.Row``, asyncpg records).
        in_thread: advance a plain iterable in worker threads, ``chunk`` items per hop.
            A ``sqlite3`` connection must then be opened with ``check_same_thread=False``.
        chunk: items per hop when ``in_thread`` is set.

    Example::

        conn = sqlite3.connect("app.db", check_same_thread=False)
        conn.row_factory = sqlite3.Row
        rows = conn.execute("SELECT id, body AS text FROM notes")
        await memory.ingest(from_iterable(rows, in_thread=True), name="app.db:notes")
    """
    if isinstance(items, AsyncIterable):
        async for item in items:
            yield item
    elif in_thread:
        iterator = iter(items)
        async for item in iterate_in_thread(lambda: iterator, chunk=chunk):
            yield item
    else:
        for item in items:
            yield item
