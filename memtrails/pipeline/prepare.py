"""The per-record stages in one loop, a queue's worth of items at a time, into batches."""

from __future__ import annotations

import asyncio
import hashlib
from collections import Counter
from collections.abc import AsyncGenerator, AsyncIterable, Callable
from datetime import date, datetime, time, timezone
from typing import Any
from zoneinfo import ZoneInfo

from ..items import RawLine, StageItem, UnchangedMany
from ..limits import Limits
from ..records import At, MemoryRecord, SourceState
from ._pump import END, IDLE, Failure, check_batching, next_queued, pumping
from ._stage import StageContext, run_stage
from .dedup import Claims
from .normalise import CUT_MARGIN
from .stages import STAGES

__all__ = ["prepared"]

Settle = Callable[[SourceState, int], SourceState]

# Values whose repr() tells any two apart (equal reprs: equal values, and so equal records).
_PLAIN = frozenset({str, int, float, bool, type(None), At})
_ZONES = frozenset({type(None), timezone, ZoneInfo})
_RECORD_FIELDS = ("id", "text", "kind", "author", "title", "source", "thread")
# Larger records are not digested: their repr would be a copy as large (a 200 MB field), and
# their own scrubbing costs far more than reading them again.
_DIGEST_CHARS = 1 << 20


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
    salt: bytes | None = None,
) -> AsyncGenerator[list[StageItem], None]:
    """Yield lists of at most ``size`` stage items: every item through :data:`STAGES`, batched.

    The stages' own functions (``normalise | scrub | fit | dedup``), walked in a plain loop
    over the items already queued instead of one await per item per stage; a partial list is flushed after
    ``idle`` seconds without input, as :func:`~memtrails.pipeline.batch.batched` does.

    A :class:`~memtrails.items.RawLine` whose digest the folder holds for a record not yet
    seen in this run is that record unchanged: it is never parsed, and such records come
    as one :class:`~memtrails.items.UnchangedMany` per source and list. Any other line is
    parsed and goes the usual way, its digest kept with its record when the line alone
    makes it. ``settle`` corrects the positions of such a source, which count every line
    as a record until parsed (``RawReadable.settle``). With ``salt``, a record or a dict
    (a row of a cursor) made only of plain values (strings, numbers, None, dates, lists
    and dicts of them) is digested the same way, from its ``repr`` and the salt.

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
        salt: what else decides a record (code, rules, limits, zone): digests records and
            rows too.
    """
    check_batching(size, idle)
    work = _Work(claims, name, limits, settle, salt)
    async with pumping(source, 1 if chunked else size) as queue:
        buf: list[StageItem] = []
        ended = False
        failure: Exception | None = None
        while not ended:
            item = await next_queued(queue, bool(buf), idle)
            if item is IDLE:
                out, buf = buf, []
                yield out
                continue
            chunk: list[Any] = []
            # Take what is already queued, without waiting: the pump refills behind it.
            while True:
                if item is END:
                    ended = True
                    break
                if isinstance(item, Failure):
                    # The source failed (a dropped database connection): what it yielded
                    # before goes on to the folder first, then the failure is raised.
                    failure = item.exc
                    ended = True
                    break
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
        if failure is not None:
            failure.add_note(
                f"memtrails: the source {name!r} failed after {work.ctx.position} items; what "
                "it yielded before was imported, and a re-run finds it unchanged"
            )
            raise failure


class _Work:
    """The stages (:data:`~memtrails.pipeline.stages.STAGES`) over a chunk of items, with
    the counts they keep."""

    __slots__ = ("claims", "ctx", "key", "max_depth", "not_records", "settle")

    def __init__(
        self,
        claims: Claims,
        name: str,
        limits: Limits | None,
        settle: Settle | None,
        salt: bytes | None,
    ) -> None:
        self.claims = claims
        self.ctx = StageContext(name, limits or Limits(), claims, margin=CUT_MARGIN)
        self.settle = settle
        self.key = None if salt is None else hashlib.blake2b(salt, digest_size=32).digest()
        self.max_depth = self.ctx.limits.max_depth
        self.not_records: Counter[str] = Counter()  # raw lines that were no record, per source

    async def run(self, chunk: list[Any], out: list[StageItem]) -> None:
        """Append the stage items for ``chunk`` to ``out``, in order (unchanged raw lines first)."""
        claims, ctx = self.claims, self.ctx
        digests: list[bytes | None] = [
            item.key if type(item) is RawLine else self._digest(item) for item in chunk
        ]
        wanted = [d for d in digests if d is not None]
        known = claims.known(wanted) if wanted else {}
        unchanged: dict[str, list[str]] = {}
        rest: list[StageItem] = []
        for item, digest in zip(chunk, digests, strict=True):
            ctx.position += 1
            found = known.get(digest) if digest is not None else None
            # The first record with a uid in a run is the one kept: a later one with the same
            # digest goes the usual way, to be found unchanged or a duplicate.
            if found is not None and claims.first(found[0]):
                unchanged.setdefault(found[1], []).append(found[0])
                continue
            if type(item) is RawLine:
                parsed, keyed = item.parse(item.raw, item.where)
                if not isinstance(parsed, MemoryRecord):
                    self.not_records[item.source] += 1
                    if parsed is None:
                        continue
                digest = digest if keyed else None
                item = parsed
            elif type(item) is SourceState and self.settle is not None:
                item = self.settle(item, self.not_records[item.source])
            ctx.raw = digest
            for stage in STAGES:
                if stage.heavy(item):
                    item = await asyncio.to_thread(run_stage, stage, item, ctx)
                else:
                    item = run_stage(stage, item, ctx)
            rest.append(item)
        out.extend(UnchangedMany(source, uids) for source, uids in unchanged.items())
        out.extend(rest)

    def _digest(self, item: Any) -> bytes | None:
        """Return the digest of a record or a dict made of plain values only, else None."""
        if self.key is None:
            return None
        if type(item) is MemoryRecord:
            values: list[Any] = [getattr(item, f) for f in _RECORD_FIELDS]
            values.append(item.at)
            values.append(item.meta)
        elif type(item) is dict:
            values = [item]
        else:
            return None
        if not _plain(values, self.max_depth + 1):
            return None
        try:
            text = repr(values)
        except ValueError:  # an int of over 4,300 digits: the stages refuse its record
            return None
        return hashlib.blake2b(
            text.encode("utf-8", "surrogatepass"),
            digest_size=16,
            key=self.key,
            person=b"record",
        ).digest()


def _plain(values: list[Any], max_depth: int) -> bool:
    """Tell whether every value, at any depth up to ``max_depth``, is one whose repr is exact,
    and all of them small enough to be digested."""
    stack = [(v, 0) for v in values]
    chars = 0
    while stack:
        v, depth = stack.pop()
        t = type(v)
        if t is str:
            chars += len(v)
            if chars > _DIGEST_CHARS:
                return False
            continue
        if t in _PLAIN:
            continue
        if depth >= max_depth:
            return False
        if t is dict:
            for k, x in v.items():
                if type(k) is not str:
                    return False
                chars += len(k)
                stack.append((x, depth + 1))
        elif t is list or t is tuple:
            stack.extend((x, depth + 1) for x in v)
        elif t is datetime or t is time:
            if type(v.tzinfo) not in _ZONES:
                return False
        elif t is not date:
            return False
    return True
