"""Maintenance of an open memory folder: rebuilding its index from the log, checking it whole."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Sequence
from typing import Any

from .embedding._base import Embedder
from .folder.check import CheckReport, check_folder, forget_set_aside
from .folder.opening import Folder
from .folder.points import passage_scripts
from .folder.recent_turns import RecentTurns
from .folder.reorder import PieceCache
from .ingest import StepProgress, index_log
from .items import embed_text
from .records import MemoryRecord

__all__ = ["add_scripts", "check_folder_and_repair", "reindex_folder"]


async def reindex_folder(
    folder: Folder,
    batch: int,
    model: str | os.PathLike[str] | Embedder | None,
    threads: int | None,
    on_progress: StepProgress | None = None,
) -> int:
    """Rebuild the table and the index from the log; see :meth:`memtrails.Memory.reindex`."""
    report = on_progress or _silent
    # The table too: index_log reads the records it lists, so a lost row stays lost.
    report("rebuilding the table", 0, None)
    await folder.writer.rebuild_table()
    report("clearing the index" if model is None else "loading the model", 0, None)
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
        described = new.describe()
        identity = f"{described.get('model_id')}:{described.get('sha256')}"
        folder.pieces = PieceCache(folder.path, identity)
        folder.turns = RecentTurns(folder.path, identity)
    if folder.pieces is not None:
        folder.pieces.clear()  # derived from the log like the index: built again below
    # The reset (or change_model's) recorded this version's keyword weights and point
    # fields in the manifest: every point is written anew from here.
    return await index_log(folder, 0, batch, report)


async def add_scripts(folder: Folder, on_progress: StepProgress | None = None) -> int:
    """Give each point that lacks them its passage's scripts, read from the log; return how
    many got some. Vectors and keywords stay as they are: no model runs (a folder indexed
    before points kept their scripts, see :meth:`memtrails.Memory.reindex`)."""
    report = on_progress or _silent
    after: str | None = None
    seen = given = 0
    while True:
        report("giving passages their scripts", seen, None)
        page, after = await folder.index.points_missing("scripts", after, 1024)
        groups = await asyncio.to_thread(_scripts_of, folder, page)
        for scripts, ids in groups.items():
            await folder.index.set_payload(ids, {"scripts": list(scripts)})
            given += len(ids)
        seen += len(page)
        if after is None:
            break
    await folder.index.flush()
    await folder.writer.record_point_fields()
    return given


def _scripts_of(
    folder: Folder, page: Sequence[tuple[str, dict[str, Any]]]
) -> dict[tuple[str, ...], list[str]]:
    """The points of ``page`` by the scripts their passages are written in (blocking: log
    reads); a point too short to tell, or of a record the table lacks, is in none."""
    texts: dict[str, str] = {}
    out: dict[tuple[str, ...], list[str]] = {}
    for point_id, payload in page:
        uid = str(payload.get("uid"))
        if uid not in texts and (row := folder.table.get(uid)) is not None:
            texts[uid] = embed_text(MemoryRecord.from_json(folder.log.read_line(row.offset)))
        if uid in texts:
            start, end = int(payload.get("start") or 0), int(payload.get("end") or 0)
            if scripts := passage_scripts(texts[uid], start, end):
                out.setdefault(tuple(scripts), []).append(point_id)
    return out


async def check_folder_and_repair(
    folder: Folder, repair: bool, batch: int, on_progress: StepProgress | None = None
) -> CheckReport:
    """Check the folder whole, repairing what the log can; see :meth:`memtrails.Memory.check`."""
    say = on_progress or _silent
    parts = (folder.path, folder.log, folder.table, folder.index, folder.positions)
    say("checking", 0, None)
    report = await check_folder(*parts)
    opened = [f"on open: {repair}" for repair in folder.repairs]
    if not repair or not (report.orphans or report.missing or report.pending or report.table_wrong):
        report.repaired = opened
        return report
    fixed: list[str] = []
    if report.table_wrong:
        say("rebuilding the table", 0, None)
        rows = await folder.writer.rebuild_table()
        fixed.append(f"rebuilt table.sqlite from records.jsonl ({rows} records)")
        fixed += await forget_set_aside(folder.positions, report.set_aside)
    if report.orphans:
        say("removing points", 0, None)
        await folder.writer.remove_points(report.orphans)
        fixed.append(f"removed the points of {len(report.orphans)} records not in records.jsonl")
    if report.missing:
        say("clearing the index", 0, None)
        await folder.writer.reset()
        n = await index_log(folder, 0, batch, say)
        fixed.append(f"rebuilt the index from records.jsonl ({n} records)")
    elif report.pending:
        n = await index_log(folder, folder.writer.checkpoint, batch, say)
        fixed.append(f"indexed the {n} records past the index checkpoint")
    say("checking again", 0, None)
    report = await check_folder(*parts)
    report.repaired = opened + fixed
    return report


def _silent(_phase: str, _done: int, _total: int | None) -> None:
    return None
