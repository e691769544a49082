"""Do the parts of a memory folder agree? A cheap check on open, a full one for ``memtrails check``."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .damaged import LINE_ERRORS, ChangedLine, check_line, line_uid
from .glance import checkpoint_problem, mark_problem
from .index._base import IndexBackend
from .index.deferred import DeferredIndex
from .log import RecordLog
from .manifest import read_checkpoint_mark
from .positions import Positions
from .table import Table
from .writer import Writer

__all__ = ["CheckReport", "check_folder", "forget_set_aside", "verify_on_open"]


async def verify_on_open(
    path: Path,
    log: RecordLog,
    table: Table,
    index: IndexBackend,
    positions: Positions,
    writer: Writer,
    *,
    deferred: DeferredIndex | None = None,
    repairs: list[str] | None = None,
) -> list[str]:
    """Compare the log with the checkpoint, the index and the saved positions; repair from the log.

    Cheap: a few reads at the log's offsets and one exact count of the index. What is
    repaired: an index that does not match the log is emptied with the checkpoint at 0 (the
    catch-up on open, or the next writer, rebuilds it from the log); positions saved when the
    log was longer are dropped (the next ``add`` reads every source in full).

    With ``deferred`` (an index not loaded yet), the count of the index is compared when its
    first use loads it, before that use, and a repair then is added to ``repairs`` (the
    folder's list): a folder that never uses its index never pays for loading it.

    Returns:
        One line per repair made now, naming the file and what was done.
    """
    made: list[str] = []
    stranger = await _owner_problem(writer, index)
    if stranger is not None:
        made.append(f"{stranger}: the index was emptied and is rebuilt from records.jsonl")
    checkpoint, tail, problem = await asyncio.to_thread(read_checkpoint_mark, path)
    if problem is None and checkpoint:
        problem = await asyncio.to_thread(checkpoint_problem, log, checkpoint, tail)
    if problem is None and deferred is not None:
        deferred.first_use = _count_on_first_use(
            log, table, writer, made if repairs is None else repairs
        )
    elif problem is None:
        problem = await _count_problem(log, table, index, checkpoint)
    if problem is not None:
        await writer.reset()
        made.append(f"{problem}: the index was emptied and is rebuilt from records.jsonl")
    mark = positions.log_mark
    if mark is not None and positions.entries():
        cut = await asyncio.to_thread(mark_problem, log, mark)
        if cut is not None:
            await positions.forget_all()
            made.append(
                f"sources.json: {cut}; its saved positions were dropped, so the next add "
                "reads every source in full"
            )
    return made


async def _owner_problem(writer: Writer, index: IndexBackend) -> str | None:
    """Mark an unmarked index as the folder's; empty one made for another folder (a copy).

    Returns what was found wrong, or None.
    """
    owner = await index.owner()
    mine = writer.folder_id
    if owner is not None and owner == mine:
        return None
    await writer.adopt_index(rebuild=owner is not None)
    if owner is None:
        return None  # a new index, or one made before folders had an id: marked now
    return (
        f"the index belongs to another memory folder (it is marked {owner[:12]}, this folder "
        f"is {str(mine)[:12]}): it was copied in from there"
    )


def _count_on_first_use(
    log: RecordLog, table: Table, writer: Writer, repairs: list[str]
) -> Callable[[IndexBackend], Awaitable[None]]:
    async def count(index: IndexBackend, checkpoint: int) -> str | None:
        return await _count_problem(log, table, index, checkpoint)

    async def check(index: IndexBackend) -> None:
        # Under the writer's lock: no write reaches the index between count and clearing.
        problem = await writer.verify_index(index, count)
        if problem is not None:
            repairs.append(
                f"{problem}: the index was emptied (on its first use) and is rebuilt from "
                "records.jsonl by the next open"
            )

    return check


async def _count_problem(
    log: RecordLog, table: Table, index: IndexBackend, checkpoint: int
) -> str | None:
    # Every live record whose line is before the checkpoint must be in the index; with the
    # checkpoint at the log's end, the index holds exactly the live records. Counted from
    # the stored rows (claims of an import running in this process have not reached the
    # index), in one pass over the table.
    covered = table.count_before(checkpoint)
    if covered == 0 and checkpoint < log.size:
        return None
    indexed = await index.count_records()
    if checkpoint >= log.size and indexed != covered:
        return f"the index holds {indexed} records where records.jsonl has {covered}"
    if indexed < covered:
        return f"the index holds {indexed} records where records.jsonl has at least {covered}"
    return None


# -- the full check (``memtrails check``) -----------------------------------------------------

_SHOWN = 20  # problems of one kind listed by name; the rest are counted


@dataclass(slots=True)
class CheckReport:
    """What ``memtrails check`` found: counts, problems, and what was repaired.

    ``problems`` lists what is still wrong; a check is clean when it is empty. ``pending``
    counts log bytes past the index checkpoint: not a fault (the next writer indexes them).
    """

    lines: int = 0
    records: int = 0
    tombstones: int = 0
    indexed: int | None = None  # records with points, None when the index cannot be listed
    orphans: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    pending: int = 0
    table_wrong: bool = False  # table.sqlite's rows are not the log's live records
    # The sources of records the table still counts whose lines are damaged (set aside by a
    # repair): their saved positions go with them, or adding them again would skip the
    # records as read already ("unchanged") and never bring them back.
    set_aside: dict[str, int] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    repaired: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """True when nothing is wrong (after the repairs, if any)."""
        return not self.problems

    def to_json(self) -> dict[str, Any]:
        """Return the report as one JSON object."""
        return {
            "ok": self.ok,
            "lines": self.lines,
            "records": self.records,
            "tombstones": self.tombstones,
            "indexed": self.indexed,
            "orphans": len(self.orphans),
            "missing": len(self.missing),
            "pending_bytes": self.pending,
            "problems": list(self.problems),
            "repaired": list(self.repaired),
        }


async def check_folder(
    path: Path, log: RecordLog, table: Table, index: IndexBackend, positions: Positions
) -> CheckReport:
    """Check every part of an open folder against the log; change nothing.

    Every log line parses and is a memtrails line (uid derived from source and id, record
    fields readable); the live records read now are the table's; every live record the
    checkpoint covers has its points, and no point belongs to a record the log lacks; the
    checkpoint and the saved positions match the log.
    """
    report = CheckReport()
    checkpoint, tail, unreadable = await asyncio.to_thread(read_checkpoint_mark, path)
    live, pending, damaged = await asyncio.to_thread(_scan_log, log, report, checkpoint)
    rows = await asyncio.to_thread(lambda: dict(table.offsets()))
    for uid, offset in damaged.items():
        if rows.get(uid) == offset and (row := table.get(uid)) is not None:
            report.set_aside[row.source] = report.set_aside.get(row.source, 0) + 1
    if live != rows:
        report.table_wrong = True
        # Rows at damaged lines (opening reads only a line's first bytes) are the damaged
        # lines' problem, said above: --repair's rebuild drops them, so that adding their
        # source again brings their records back.
        if live != {uid: at for uid, at in rows.items() if damaged.get(uid) != at}:
            report.problems.append(
                "table.sqlite does not hold the live records of records.jsonl (a row lost or "
                "left over, or the log changed while the folder was open): memtrails check "
                "--repair rebuilds it from the log"
            )
    problem = unreadable or (
        await asyncio.to_thread(checkpoint_problem, log, checkpoint, tail) if checkpoint else None
    )
    if problem:
        report.problems.append(problem)
    report.pending = max(0, log.size - checkpoint)
    if positions.log_mark is not None and positions.entries():
        cut = await asyncio.to_thread(mark_problem, log, positions.log_mark)
        if cut:
            report.problems.append(f"sources.json: {cut}")
    points = await index.point_uids()
    if points is not None:
        report.indexed = sum(1 for passages in points.values() if 0 in passages)
        # A record forgotten past the checkpoint may keep its points until the catch-up.
        report.orphans = sorted(uid for uid in points if uid not in live and uid not in pending)
        report.missing = sorted(
            uid
            for uid, offset in live.items()
            if offset < checkpoint and 0 not in points.get(uid, ())
        )
    else:
        report.indexed = await index.count_records()
        if checkpoint >= log.size and report.indexed != len(live):
            report.missing = ["?"]  # which ones cannot be told without listing the index
    if report.orphans:
        report.problems.append(
            f"index: {len(report.orphans)} records have points but are not in records.jsonl "
            f"({_names(report.orphans)})"
        )
    if report.missing:
        report.problems.append(
            f"index: {len(report.missing)} records of records.jsonl have no points "
            f"({_names(report.missing)})"
        )
    return report


async def forget_set_aside(positions: Positions, set_aside: dict[str, int]) -> list[str]:
    """Drop the saved positions of the sources whose records a repair set aside (their
    lines damaged), so that the next add reads them in full and adds those records again;
    return what was done, for the report."""
    done = []
    for source, count in sorted(set_aside.items()):
        if positions.get(source) is None:
            continue
        await positions.forget(source)
        what = (
            "1 record set aside: its line in records.jsonl is damaged"
            if count == 1
            else f"{count} records set aside: their lines in records.jsonl are damaged"
        )
        done.append(
            f"dropped the saved position of {source!r} ({what}), so the next add reads it in "
            f"full and adds {'it' if count == 1 else 'them'} again"
        )
    return done


def _names(uids: list[str]) -> str:
    shown = ", ".join(uids[:3])
    return shown + (f" and {len(uids) - 3} more" if len(uids) > 3 else "")


def _scan_log(
    log: RecordLog, report: CheckReport, checkpoint: int
) -> tuple[dict[str, int], set[str], dict[str, int]]:
    """Read every line: the live records (uid -> offset), the uids past the checkpoint,
    and the records whose current line cannot be read (uid -> offset), which are not live."""
    live: dict[str, int] = {}
    pending: set[str] = set()  # uids of the lines the index has not caught up with
    damaged: dict[str, int] = {}
    bad = 0
    for offset, line in log.raw_lines():
        report.lines += 1
        try:
            uid, deleted = check_line(line)
        except ChangedLine as exc:  # its record is still read: said, and live
            bad += 1
            _said(report, bad, offset, exc)
            uid, deleted = exc.uid, False
        except LINE_ERRORS as exc:
            bad += 1
            _said(report, bad, offset, exc)
            # Its record, when the line still names it, cannot be read: not live (as the
            # table takes it, damaged.py), nor is a version before it.
            if (named := line_uid(line)) is not None:
                live.pop(named, None)
                damaged[named] = offset
                if offset >= checkpoint:
                    pending.add(named)
            continue
        damaged.pop(uid, None)
        if offset >= checkpoint:
            pending.add(uid)
        if deleted:
            live.pop(uid, None)
            report.tombstones += 1
        else:
            live[uid] = offset
    if bad > _SHOWN:
        report.problems.append(f"records.jsonl: {bad - _SHOWN} more lines are not valid")
    report.records = len(live)
    return live, pending, damaged


def _said(report: CheckReport, bad: int, offset: int, exc: Exception) -> None:
    if bad <= _SHOWN:
        report.problems.append(
            f"records.jsonl: line at byte {offset} is not a valid memtrails log line "
            f"({exc}); the log is the source of truth and cannot be repaired from "
            "itself: restore records.jsonl from a backup"
        )
