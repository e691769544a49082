"""Custom sources: any iterable or async iterable of records, mappings or database rows."""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterable, AsyncIterator, Iterable, Iterator
from typing import Any

from .._threads import iterate_in_thread
from ..record_values import numbered_names

__all__ = ["closing_aiter", "from_iterable", "named_rows"]


def _columns(items: object) -> list[str] | None:
    """The column names of a DB-API cursor (``description``), or None for anything else."""
    description = getattr(items, "description", None)
    if not description:
        return None
    try:
        names = [str(column[0]) for column in description]
    except (TypeError, IndexError):
        return None
    return numbered_names(names)


def named_rows(items: Iterable[Any]) -> Iterable[Any]:
    """Return ``items``, with a DB-API cursor's plain tuple rows as dicts of its column names.

    ``sqlite3``, psycopg and most drivers yield tuples unless told otherwise; the cursor's
    ``description`` (read once the query ran) names their columns, so ``SELECT id, body AS
    text`` rows become records without a row factory. A name the query gives twice (a
    join's two ``id``) is the first column's; the next is ``id_2``. Anything else passes
    through.
    """
    if _columns(items) is None:
        return items
    return _named(items)


def _named(cursor: Iterable[Any]) -> Iterable[Any]:
    names: list[str] | None = None
    for row in cursor:
        if type(row) is tuple:
            # Read when the first row comes: a cursor iterated before its query ran has none.
            names = names or _columns(cursor)
            if names is not None and len(names) == len(row):
                yield dict(zip(names, row, strict=True))
                continue
        yield row


async def from_iterable(
    items: Iterable[Any] | AsyncIterable[Any], *, in_thread: bool = False, chunk: int = 256
) -> AsyncIterator[Any]:
    """Yield the items of a plain or async iterable, pulled only as the pipeline asks.

    ``Memory.ingest`` accepts iterables directly; use this to read a blocking iterable (a
    DB-API cursor, a large generator) in worker threads so the event loop stays free.

    Args:
        items: records, ``RecordError``s, mappings with record fields, rows with
            ``keys()`` (``sqlite3.Row``, asyncpg records), or a DB-API cursor of plain
            tuples (read by the column names of its ``description``). A key that is not a
            record field goes into ``meta``. A driver's values are read as what they
            stand for (a Decimal as its number, a UUID as its string, bytes as UTF-8 text:
            :mod:`memtrails.record_values`).
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
        async for item in closing_aiter(items):
            yield item
    elif in_thread:
        iterator = iter(named_rows(items))
        failed: list[Exception] = []
        async for item in iterate_in_thread(lambda: _until_failure(iterator, failed), chunk=chunk):
            yield item
        if failed:
            raise failed[0]
    else:
        rows = iter(named_rows(items))
        try:
            for item in rows:
                yield item
        finally:
            # A generator of the caller's closes its cursor or transaction in its
            # ``finally``: run it now that the import stopped (strict mode's first error, a
            # cancel), not when the garbage collector finds it. Other iterators are the
            # caller's to close (a DB-API cursor may be used again).
            if inspect.isgenerator(rows):
                rows.close()


async def closing_aiter(items: AsyncIterable[Any]) -> AsyncIterator[Any]:
    """Yield the items of ``items``, closing its iterator (``aclose``) when iteration stops.

    ``async for`` inside an async generator leaves the inner iterator open when the outer
    one is closed early; an async generator of the caller's then finishes (its ``finally``,
    a cursor's close) only when the event loop shuts down.
    """
    iterator = aiter(items)
    try:
        async for item in iterator:
            yield item
    finally:
        close = getattr(iterator, "aclose", None)
        if close is not None:
            await close()


def _until_failure(iterator: Iterator[Any], failed: list[Exception]) -> Iterator[Any]:
    """Yield ``iterator``'s items; keep its exception in ``failed`` instead of raising it.

    A worker call reads ``chunk`` items at once: raised there, a failure (a dropped
    database connection) would take the items read before it in that call with it.
    """
    try:
        yield from iterator
    except Exception as exc:
        failed.append(exc)
