"""The scrub stage: secrets are replaced before a record is fingerprinted, stored or embedded."""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator
from typing import Any

from aiostream import pipable_operator

from ..items import Staged
from ..keys import record_uid
from ..records import MemoryRecord, RecordError, Seen, SourceState
from ..secrets import scrub_error, scrub_record, scrub_state
from ._stage import Stage, StageContext, each, run_stage
from .fit import FIT

__all__ = ["INLINE_CHARS", "SCRUB", "scrub", "scrub_item", "staged"]

# Scrubbing runs at tens of MB/s: a record this large would hold the event loop for a few
# milliseconds, so it goes to a worker thread; small ones are cheaper scrubbed in place.
INLINE_CHARS = 64 * 1024


def staged(record: MemoryRecord) -> Staged:
    """Return ``record`` scrubbed, with its uid from the raw id (blocking: see INLINE_CHARS)."""
    uid = record_uid(record.source, record.id)
    clean, found = scrub_record(record)
    return Staged(clean, secrets=found or None, uid=uid)


def scrub_item(
    item: RecordError | Seen | SourceState,
) -> RecordError | Seen | SourceState:
    """Return an item that is not a record with the secrets in its written strings replaced."""
    if isinstance(item, RecordError):
        return scrub_error(item)
    if isinstance(item, SourceState):
        return scrub_state(item)
    return item


def _scrub(item: Any, ctx: StageContext) -> Any:
    if isinstance(item, MemoryRecord):
        clean = staged(item)
        clean.raw = ctx.raw
        return clean
    if isinstance(item, RecordError | Seen | SourceState):
        return scrub_item(item)
    return item


def _big(item: Any) -> bool:
    return isinstance(item, MemoryRecord) and len(item.text) >= INLINE_CHARS


SCRUB = Stage("scrub", _scrub, heavy=_big)
"""Secrets replaced by markers in every string of a record, an error or a position."""


@pipable_operator
async def scrub(
    source: AsyncIterable[MemoryRecord | RecordError | Seen | SourceState],
) -> AsyncIterator[Staged | RecordError | Seen | SourceState]:
    """Yield every item scrubbed of secrets: records with counts, errors, positions.

    A record's every string is scrubbed (id, title, text, author, thread, meta); its uid is
    computed from the raw id first, so that a record whose id holds a secret keeps one
    identity from run to run while only the scrubbed id is stored. An error's place and
    reason and a position's strings are scrubbed too: they are written and printed.
    ``Seen`` passes through untouched (its id is only hashed into a uid). A record that
    normalisation marked as over a limit is then cut (the fit stage), so that a secret
    across the limit was scrubbed whole. An aiostream operator: ``scrub.pipe()``.

    Args:
        source: what :func:`normalise` yields.

    Yields:
        A ``Staged`` (``memtrails.items``) for each record: the scrubbed record as
        ``.record``, and ``.secrets``, a ``Counter`` of what was replaced by kind
        (``memtrails.secrets.KINDS``), or None; errors and positions scrubbed; ``Seen`` as is.

    Example:

        >>> import asyncio
        >>> from aiostream import stream
        >>> from memtrails import normalise, scrub
        >>> async def scrubbed(items):
        ...     async with (stream.iterate(items) | normalise.pipe() | scrub.pipe()).stream() as out:
        ...         return [item async for item in out]
        >>> [staged] = asyncio.run(scrubbed([{"id": "1", "text": "db: postgres://app:pw42@db/app"}]))
        >>> staged.record.text, staged.secrets
        ('db: postgres://app:[secret:url-password]@db/app', Counter({'url-password': 1}))
    """
    ctx = StageContext()
    async for item in each(source, SCRUB, ctx):
        yield run_stage(FIT, item, ctx)
