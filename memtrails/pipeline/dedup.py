"""The dedup stage: a record whose fingerprint the folder already holds does no more work."""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator
from typing import Any, Literal, Protocol

from aiostream import pipable_operator

from ..items import Staged, StageItem, Unchanged
from ..keys import fingerprint, record_uid
from ..records import RecordError, Seen, SourceState
from ..secrets import scrub_text
from ._stage import Stage, StageContext, each

__all__ = ["DEDUP", "Claims", "dedup", "dedup_item"]


class Claims(Protocol):
    """What dedup asks the folder: is this version new, changed or already there?"""

    def claim(
        self, uid: str, fp: str, source: str, raw: bytes | None = None
    ) -> Literal["new", "changed", "unchanged", "duplicate"]:
        """Record that this version is on its way and say how it relates to what is stored.

        ``"duplicate"``: a record with this uid but other content already passed in this
        run; the first one is kept, so that re-running over the same input is stable.
        ``raw``: the digest of the input the version was made from, kept beside it.
        """
        ...

    def known(self, digests: list[bytes]) -> dict[bytes, tuple[str, str]]:
        """Return ``(uid, source)`` of stored records made from inputs with these digests."""
        ...

    def first(self, uid: str) -> bool:
        """Tell whether ``uid`` is new to this run, and count it as passed."""
        ...

    def holds(self, uid: str) -> bool:
        """Tell whether the folder holds a live record with this uid."""
        ...


def dedup_item(item: Staged | RecordError | Seen | SourceState, claims: Claims) -> StageItem:
    """Return ``item`` as the dedup stage passes it on (see :func:`dedup`)."""
    if isinstance(item, RecordError | SourceState):
        return item
    if isinstance(item, Seen):
        uid = record_uid(item.source, item.id)
        if claims.holds(uid):
            return Unchanged(uid, item.source)
        return RecordError(
            item.source,
            scrub_text(item.id)[0],  # a place that is printed: never a raw id
            "unchanged in the source but missing from the memory; re-import with --full",
            id=item.id,
        )
    # The scrub stage sets the uid from the raw id (the stored id may be scrubbed).
    item.uid = item.uid or record_uid(item.record.source, item.record.id)
    item.fp = fingerprint(item.record)
    verdict = claims.claim(item.uid, item.fp, item.record.source, item.raw)
    if verdict == "unchanged":
        return Unchanged(item.uid, item.record.source)
    if verdict == "duplicate":
        return RecordError(
            item.record.source,
            item.record.id,
            "another record of this source has the same id and other content; "
            "the first one was kept",
            id=item.record.id,
        )
    item.update = verdict == "changed"
    return item


def _dedup(item: Any, ctx: StageContext) -> Any:
    if ctx.claims is None:
        raise RuntimeError("the dedup stage needs the folder's claims")
    return dedup_item(item, ctx.claims)


DEDUP = Stage("dedup", _dedup)
"""Uid and fingerprint attached; what the folder already holds becomes ``Unchanged``."""


@pipable_operator
async def dedup(
    source: AsyncIterable[Staged | RecordError | Seen | SourceState], claims: Claims
) -> AsyncIterator[StageItem]:
    """Attach uid and fingerprint; turn records the folder already has into ``Unchanged``.

    A record seen twice in one run counts as unchanged the second time when its content is
    the same, and is skipped with an error when it differs (the first one is kept, so a
    re-run over the same input changes nothing): the claim is made when the record passes,
    before it is written. A ``Seen`` record (the importer proved it
    unchanged without reading it) is unchanged when the folder holds it, and an error when
    it does not. An aiostream operator: ``dedup.pipe(claims)``.

    Args:
        source: what :func:`scrub` yields.
        claims: what is stored, asked through the :class:`Claims` protocol: a memory
            folder's, or one of your own.

    Yields:
        A ``Staged`` with ``uid`` and ``fp`` set for a new or changed record (``update``:
        changed), an ``Unchanged`` (``memtrails.items``) for one already stored as it is,
        a ``RecordError`` for a second, different record with the same id, and the rest
        as it came.

    Example: a store of your own, a dict of uid -> fingerprint, read twice over:

        >>> import asyncio
        >>> from aiostream import stream
        >>> from memtrails import dedup, normalise, scrub
        >>> class Store:
        ...     def __init__(self):
        ...         self.fps = {}
        ...     def claim(self, uid, fp, source, raw=None):
        ...         old, self.fps[uid] = self.fps.get(uid), fp
        ...         return "new" if old is None else "unchanged" if old == fp else "changed"
        ...     def known(self, digests):
        ...         return {}  # keeps no digests of raw input
        ...     def first(self, uid):
        ...         return True
        ...     def holds(self, uid):
        ...         return uid in self.fps
        >>> async def run(items, store):
        ...     steps = stream.iterate(items) | normalise.pipe() | scrub.pipe() | dedup.pipe(store)
        ...     async with steps.stream() as out:
        ...         return [type(item).__name__ async for item in out]
        >>> store = Store()
        >>> asyncio.run(run([{"id": "1", "text": "a"}], store))
        ['Staged']
        >>> asyncio.run(run([{"id": "1", "text": "a"}], store))
        ['Unchanged']
    """
    async for item in each(source, DEDUP, StageContext(claims=claims)):
        yield item
