"""Normalise, scrub and dedup in one stage, a queue's worth of items at a time, into batches."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import AsyncGenerator, AsyncIterable, Callable
from typing import Any

from ..items import RawLine, StageItem, UnchangedMany
from ..limits import Limits
from ..records import MemoryRecord, SourceState
from .batch import _END, _cancel, _Failure, _pump
from .dedup import Claims, dedup_item
from .normalise import normalise_item
from .scrub import INLINE_CHARS, scrub_item, staged

__all__ = ["prepared"]

Settle = Callable[[SourceState, int], SourceState]


async def prepared(
    source: AsyncIterable[Any],
    claims: Claims,
    *,
    size: int = 64,
    idle: float | None = 1.0,
    name: str = "custom",
    limits: Limits | None = None,
    settle: Settle | None = None,
    chunked: bool = False,
) -> AsyncGenerator[list[StageItem], None]:
    """Yield lists of at most ``size`` stage items: ``source | normalise | scrub | dedup | batch``.

    The same work as those stages (the same functions), done in a plain loop over the items
    already queued instead of one await per item per stage; a partial list is flushed after
    ``idle`` seconds without input, as :func:`~memtrails.pipeline.batch.batched` does.

    A :class:`~memtrails.items.RawLine` whose digest the folder holds for a record not yet
    seen in this run is that record unchanged: it is never parsed, and such records come
    as one :class:`~memtrails.items.UnchangedMany` per source and list. Any other line is
    parsed and goes the usual way, its digest kept with its record when the line alone
    makes it. ``settle`` corrects the positions of such a source, which count every line
    as a record until parsed (``RawReadable.settle``).

    Args:
        source: records, mappings, errors, positions, ``Seen`` and ``RawLine`` items.
        claims: the folder's answers to dedup (an ``ImportRun``).
        size: items per list, at least 1.
        idle: seconds to wait for the next item before flushing a partial list; None waits.
        name: the source name for records that carry none.
        limits: the size and nesting limits records are held to.
        settle: how to correct a raw source's positions.
        chunked: ``source`` yields lists of items (``RawReadable.raw_lines``): one list is
            read ahead instead of ``size`` items.
    """
    if size < 1:
        raise ValueError("`size` must be at least 1")
    if idle is not None and idle <= 0:
        raise ValueError("`idle` must be positive or None")
    queue: asyncio.Queue[Any] = asyncio.Queue(maxsize=1 if chunked else size)
    task = asyncio.ensure_future(_pump(source, queue))
    work = _Work(claims, name, limits, settle)
    try:
        buf: list[StageItem] = []
        ended = False
        while not ended:
            try:
                item = queue.get_nowait()
            except asyncio.QueueEmpty:
                if buf and idle is not None:
                    try:
                        item = await asyncio.wait_for(queue.get(), idle)
                    except TimeoutError:
                        out, buf = buf, []
                        yield out
                        continue
                else:
                    item = await queue.get()
            chunk: list[Any] = []
            # Take what is already queued, without waiting: the pump refills behind it.
            while True:
                if item is _END:
                    ended = True
                    break
                if isinstance(item, _Failure):
                    raise item.exc
                if chunked:
                    chunk.extend(item)
                else:
                    chunk.append(item)
                if len(chunk) >= size:
                    break
                try:
                    item = queue.get_nowait()
                except asyncio.QueueEmpty:
                    break
            await work.run(chunk, buf)
            while len(buf) >= size:
                out, buf = buf[:size], buf[size:]
                yield out
        if buf:
            yield buf
    finally:
        await _cancel(task)


class _Work:
    """The per-item work of normalise, scrub and dedup, with the counts they keep."""

    __slots__ = ("claims", "limits", "name", "not_records", "position", "settle")

    def __init__(
        self, claims: Claims, name: str, limits: Limits | None, settle: Settle | None
    ) -> None:
        self.claims = claims
        self.name = name
        self.limits = limits
        self.settle = settle
        self.position = 0
        self.not_records: Counter[str] = Counter()  # raw lines that were no record, per source

    async def run(self, chunk: list[Any], out: list[StageItem]) -> None:
        """Append the stage items for ``chunk`` to ``out``, in order (unchanged raw lines first)."""
        claims = self.claims
        digests = [item.key for item in chunk if type(item) is RawLine]
        known = claims.known(digests) if digests else {}
        unchanged: dict[str, list[str]] = {}
        rest: list[StageItem] = []
        for item in chunk:
            self.position += 1
            raw: bytes | None = None
            if type(item) is RawLine:
                uid = known.get(item.key)
                # The first record with a uid in a run is the one kept: a later one with the
                # same digest goes the usual way, to be found unchanged or a duplicate.
                if uid is not None and claims.first(uid):
                    unchanged.setdefault(item.source, []).append(uid)
                    continue
                parsed, keyed = item.parse(item.raw, item.where)
                if not isinstance(parsed, MemoryRecord):
                    self.not_records[item.source] += 1
                    if parsed is None:
                        continue
                raw = item.key if keyed else None
                item = parsed
            elif type(item) is SourceState and self.settle is not None:
                item = self.settle(item, self.not_records[item.source])
            record = normalise_item(item, self.name, self.position, self.limits)
            if not isinstance(record, MemoryRecord):
                rest.append(dedup_item(scrub_item(record), claims))
                continue
            if len(record.text) < INLINE_CHARS:
                clean = staged(record)
            else:
                clean = await asyncio.to_thread(staged, record)
            clean.raw = raw
            rest.append(dedup_item(clean, claims))
        out.extend(UnchangedMany(source, uids) for source, uids in unchanged.items())
        out.extend(rest)
