"""Maintenance of an open memory folder: rebuilding its index from the log, checking it whole."""

from __future__ import annotations

import os

from .embedding._base import Embedder
from .folder.check import CheckReport, check_folder
from .folder.opening import Folder
from .ingest import index_log

__all__ = ["check_folder_and_repair", "reindex_folder"]


async def reindex_folder(
    folder: Folder,
    batch: int,
    model: str | os.PathLike[str] | Embedder | None,
    threads: int | None,
) -> int:
    """Rebuild the table and the index from the log; see :meth:`memtrails.Memory.reindex`."""
    # The table too: index_log reads the records it lists, so a lost row stays lost.
    await folder.writer.rebuild_table()
    if model is None:
        await folder.writer.reset()
    else:
        from .embedding.registry import embedder_by_name
        from .folder.remodel import change_model

        given = isinstance(model, Embedder)
        new = (
            model if isinstance(model, Embedder) else await embedder_by_name(model, threads=threads)
        )
        try:
            await change_model(folder, new, owned=not given)
        except BaseException:
            if not given:
                await new.aclose()
            raise
    indexed = await index_log(folder, 0, batch)
    # Every point now carries this version's keyword weights.
    await folder.writer.record_keywords()
    return indexed


async def check_folder_and_repair(folder: Folder, repair: bool, batch: int) -> CheckReport:
    """Check the folder whole, repairing what the log can; see :meth:`memtrails.Memory.check`."""
    parts = (folder.path, folder.log, folder.table, folder.index, folder.positions)
    report = await check_folder(*parts)
    opened = [f"on open: {repair}" for repair in folder.repairs]
    if not repair or not (report.orphans or report.missing or report.pending or report.table_wrong):
        report.repaired = opened
        return report
    fixed: list[str] = []
    if report.table_wrong:
        rows = await folder.writer.rebuild_table()
        fixed.append(f"rebuilt table.sqlite from records.jsonl ({rows} records)")
    if report.orphans:
        await folder.writer.remove_points(report.orphans)
        fixed.append(f"removed the points of {len(report.orphans)} records not in records.jsonl")
    if report.missing:
        await folder.writer.reset()
        n = await index_log(folder, 0, batch)
        fixed.append(f"rebuilt the index from records.jsonl ({n} records)")
    elif report.pending:
        n = await index_log(folder, folder.writer.checkpoint, batch)
        fixed.append(f"indexed the {n} records past the index checkpoint")
    report = await check_folder(*parts)
    report.repaired = opened + fixed
    return report
