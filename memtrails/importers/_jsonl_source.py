"""What ``from_jsonl`` opens: its records one by one, or its lines unparsed for the digests."""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator, Callable
from typing import Any

from ..items import RawItem
from ..records import MemoryRecord, RecordError, SourceState

__all__ = ["JsonlSource"]


class JsonlSource(AsyncIterator[MemoryRecord | RecordError | SourceState]):
    """What :func:`from_jsonl` returns: its records one by one, or its lines unparsed.

    Iterated, it is the importer as documented. ``Memory.ingest`` asks for
    :meth:`raw_lines` instead, so that a line whose digest the folder already holds is
    never parsed, normalised or scrubbed. Either way is taken once.
    """

    def __init__(self, make: Callable[[bytes | None], AsyncGenerator[Any, None]]) -> None:
        self._make = make
        self._gen: AsyncGenerator[Any, None] | None = None

    def _started(self, salt: bytes | None) -> AsyncGenerator[Any, None]:
        if self._gen is None:
            self._gen = self._make(salt)
        return self._gen

    def __aiter__(self) -> JsonlSource:
        return self

    async def __anext__(self) -> MemoryRecord | RecordError | SourceState:
        item: MemoryRecord | RecordError | SourceState = await self._started(None).__anext__()
        return item

    async def asend(self, value: None) -> MemoryRecord | RecordError | SourceState:
        """Resume the reader (as an async generator's ``asend``)."""
        item: MemoryRecord | RecordError | SourceState = await self._started(None).asend(value)
        return item

    async def athrow(self, *args: Any) -> MemoryRecord | RecordError | SourceState:
        """Raise inside the reader (as an async generator's ``athrow``)."""
        item: MemoryRecord | RecordError | SourceState = await self._started(None).athrow(*args)
        return item

    async def aclose(self) -> None:
        """Stop reading and close the file."""
        if self._gen is not None:
            await self._gen.aclose()

    def raw_lines(self, salt: bytes) -> AsyncIterator[list[RawItem]]:
        """Yield the record lines unparsed, as :class:`~memtrails.items.RawLine` keyed with
        ``salt``, in lists of up to 256 (one hop from the reading thread each).

        Errors the reader finds without parsing (an over-long line) and positions come as
        usual; a position counts every ``RawLine`` before it as a record: :meth:`settle`
        corrects it once the lines that were not records are known.

        Raises:
            RuntimeError: iteration has already started.
        """
        if self._gen is not None:
            raise RuntimeError("this JSON Lines source is already being read")
        return self._started(salt)

    @staticmethod
    def settle(state: SourceState, not_records: int) -> SourceState:
        """Return a position of :meth:`raw_lines` counting only the lines that were records."""
        if not not_records or "records" not in state.state:
            return state
        marks = {**state.state, "records": int(state.state["records"]) - not_records}
        return SourceState(
            state.source,
            marks,
            mode=state.mode,
            complete=state.complete,
            why=state.why,
            skipped=state.skipped,
        )
