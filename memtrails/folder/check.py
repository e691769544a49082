"""Do the parts of a memory folder agree? A cheap check on open, a full one for ``memtrails check``."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from .index._base import IndexBackend
from .log import RecordLog
from .manifest import read_checkpoint_mark
from .positions import Positions
from .table import Table
from .writer import Writer

__all__ = ["verify_on_open"]


async def verify_on_open(
    path: Path,
    log: RecordLog,
    table: Table,
    index: IndexBackend,
    positions: Positions,
    writer: Writer,
) -> list[str]:
    """Compare the log with the checkpoint, the index and the saved positions; repair from the log.

    Cheap: a few reads at the log's offsets and one exact count of the index. What is
    repaired: an index that does not match the log is emptied with the checkpoint at 0 (the
    catch-up on open, or the next writer, rebuilds it from the log); positions saved when the
    log was longer are dropped (the next ``add`` reads every source in full).

    Returns:
        One line per repair made, naming the file and what was done.
    """
    repairs: list[str] = []
    checkpoint, tail, problem = await asyncio.to_thread(read_checkpoint_mark, path)
    if problem is None and checkpoint:
        problem = await asyncio.to_thread(_checkpoint_problem, log, checkpoint, tail)
    if problem is None:
        problem = await _count_problem(log, table, index, checkpoint)
    if problem is not None:
        await writer.reset()
        repairs.append(f"{problem}: the index was emptied and is rebuilt from records.jsonl")
    mark = positions.log_mark
    if mark is not None and positions.entries():
        cut = await asyncio.to_thread(_mark_problem, log, mark)
        if cut is not None:
            await positions.forget_all()
            repairs.append(
                f"sources.json: {cut}; its saved positions were dropped, so the next add "
                "reads every source in full"
            )
    return repairs


def _checkpoint_problem(log: RecordLog, checkpoint: int, tail: str | None) -> str | None:
    if checkpoint > log.size:
        return (
            f"index.json points past the end of records.jsonl (byte {checkpoint} of "
            f"{log.size}): the log was cut"
        )
    if not log.ends_line_at(checkpoint):
        return f"index.json points into the middle of a line of records.jsonl (byte {checkpoint})"
    if tail is not None and tail != log.tail(checkpoint):
        return f"records.jsonl before byte {checkpoint} changed since it was indexed"
    return None


async def _count_problem(
    log: RecordLog, table: Table, index: IndexBackend, checkpoint: int
) -> str | None:
    # Every live record whose line is before the checkpoint must be in the index; with the
    # checkpoint at the log's end, the index holds exactly the live records.
    covered = table.count_before(checkpoint)
    if covered == 0 and checkpoint < log.size:
        return None
    indexed = await index.count_records()
    live = len(table)
    if checkpoint >= log.size and indexed != live:
        return f"the index holds {indexed} records where records.jsonl has {live}"
    if indexed < covered:
        return f"the index holds {indexed} records where records.jsonl has at least {covered}"
    return None


def _mark_problem(log: RecordLog, mark: dict[str, Any]) -> str | None:
    size = mark.get("size")
    if not isinstance(size, int):
        return None
    if log.size < size:
        return (
            f"records.jsonl is shorter ({log.size} bytes) than when positions were saved ({size})"
        )
    if mark.get("tail") and mark["tail"] != log.tail(size):
        return f"records.jsonl before byte {size} changed since positions were saved"
    return None
