"""The scrub stage: secrets are replaced before a record is fingerprinted, stored or embedded."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterable, AsyncIterator

from aiostream import pipable_operator, streamcontext

from ..items import Staged
from ..records import MemoryRecord, RecordError, Seen, SourceState
from ..secrets import scrub_record

__all__ = ["scrub"]

# Scrubbing runs at tens of MB/s: a record this large would hold the event loop for a few
# milliseconds, so it goes to a worker thread; small ones are cheaper scrubbed in place.
_INLINE_CHARS = 64 * 1024


@pipable_operator
async def scrub(
    source: AsyncIterable[MemoryRecord | RecordError | Seen | SourceState],
) -> AsyncIterator[Staged | RecordError | Seen | SourceState]:
    """Yield each record scrubbed of secrets (title, text, every string in meta), with counts.

    Other items pass through untouched.
    """
    async with streamcontext(source) as items:
        async for item in items:
            if not isinstance(item, MemoryRecord):
                yield item
                continue
            if len(item.text) < _INLINE_CHARS:
                clean, found = scrub_record(item)
            else:
                clean, found = await asyncio.to_thread(scrub_record, item)
            yield Staged(clean, secrets=found or None)
