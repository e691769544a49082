"""``memtrails check``: a full consistency check of a memory folder, and its repairs."""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from memtrails import Memory
from memtrails.cli import main
from memtrails.folder.index._base import IndexPoint, SparseVector
from memtrails.keys import point_id, record_uid
from memtrails.testing import HashingEmbedder


def _notes(n: int) -> list[dict[str, str]]:
    return [
        {"id": str(i), "text": f"note {i} on the orchard and its apples, tree{i}"} for i in range(n)
    ]


async def _folder(tmp_path: Path, n: int = 10) -> Path:
    folder = tmp_path / "mem"
    async with Memory.open(folder, embedder=HashingEmbedder()) as memory:
        await memory.ingest(_notes(n), name="notes")
    return folder


@pytest.mark.slow
async def test_a_sound_folder_checks_clean(tmp_path: Path) -> None:
    folder = await _folder(tmp_path)
    async with Memory.open(folder, embedder=HashingEmbedder()) as memory:
        await memory.forget("3", source="notes")
        report = await memory.check()
    assert report.ok, report.problems
    assert (report.lines, report.records, report.tombstones, report.indexed) == (11, 9, 1, 9)
    assert report.pending == 0 and report.repaired == []


@pytest.mark.slow
async def test_orphan_and_missing_points_are_found_and_repaired(tmp_path: Path) -> None:
    folder = await _folder(tmp_path)
    gone = record_uid("notes", "4")
    stranger = "f" * 32
    async with Memory.open(folder, embedder=HashingEmbedder()) as memory:
        # Damage the index behind the folder's back, keeping its record count: one record
        # loses its points, one that the log never held gains some.
        index = memory._folder.index
        await index.delete_uids([gone])
        vector = np.full(384, 1 / np.sqrt(384), dtype=np.float32)
        payload = {"uid": stranger, "passage": 0, "kind": "note", "source": "elsewhere"}
        await index.upsert(
            [IndexPoint(point_id(stranger, 0), vector, SparseVector([], []), payload)]
        )
        await index.flush()
    async with Memory.open(folder, embedder=HashingEmbedder()) as memory:
        assert memory.repairs == []  # the cheap check on open counts only: 10 and 10
        found = await memory.check()
        assert (found.orphans, found.missing) == ([stranger], [gone])
        assert len(found.problems) == 2 and not found.ok
        fixed = await memory.check(repair=True)
        assert fixed.ok, fixed.problems
        assert fixed.repaired == [
            "removed the points of 1 records not in records.jsonl",
            "rebuilt the index from records.jsonl (10 records)",
        ]
        hits = await memory.search("tree4", k=1)
        assert hits[0].id == "4"
        assert (await memory.check()).ok


def _damage_line(folder: Path, n: int) -> int:
    """Change the id inside line ``n`` of the log (its uid no longer matches); return its offset."""
    log = folder / "records.jsonl"
    lines = log.read_bytes().splitlines(keepends=True)
    assert b'"id":"4"' in lines[n]
    offset = sum(len(line) for line in lines[:n])
    lines[n] = lines[n].replace(b'"id":"4"', b'"id":"X"')
    log.write_bytes(b"".join(lines))
    return offset


@pytest.mark.slow
async def test_a_damaged_log_line_is_named_and_not_repairable(tmp_path: Path) -> None:
    folder = await _folder(tmp_path)
    offset = _damage_line(folder, 4)
    async with Memory.open(folder, embedder=HashingEmbedder()) as memory:
        report = await memory.check(repair=True)
    assert not report.ok
    assert report.problems == [
        f"records.jsonl: line at byte {offset} is not a valid memtrails log line (uid "
        f"{record_uid('notes', '4')} is not the uid of source 'notes' and id 'X'); the log is "
        "the source of truth and cannot be repaired from itself: restore records.jsonl from "
        "a backup"
    ]


@pytest.mark.slow
def test_the_cli_check(tmp_path: Path, gsm8k_subset: Callable[[int], Path]) -> None:
    home = tmp_path / "mem"
    runner = CliRunner()
    assert runner.invoke(main, ["add", str(gsm8k_subset(5)), "--home", str(home)]).exit_code == 0
    clean = runner.invoke(main, ["check", "--json", "--home", str(home)])
    assert clean.exit_code == 0, clean.output
    assert json.loads(clean.output) == {
        "ok": True,
        "lines": 5,
        "records": 5,
        "tombstones": 0,
        "indexed": 5,
        "orphans": 0,
        "missing": 0,
        "pending_bytes": 0,
        "problems": [],
        "repaired": [],
    }
    log = home / "records.jsonl"
    lines = log.read_bytes().splitlines(keepends=True)
    first = json.loads(lines[0])
    lines[0] = lines[0].replace(f'"id":"{first["id"]}"'.encode(), b'"id":"changed"')
    log.write_bytes(b"".join(lines))
    damaged = runner.invoke(main, ["check", "--home", str(home)])
    assert damaged.exit_code == 1
    assert "problem: records.jsonl: line at byte 0 is not a valid memtrails log line" in (
        damaged.output
    )
    assert damaged.output.strip().endswith(
        "1 problems (memtrails check --repair fixes what the log can)"
    )
    # A line whose uid or fingerprint opening itself cannot read (its length changed): the
    # folder opens without that record, with a note, and the check lists the line.
    log.write_bytes(log.read_bytes().replace(b'"fp":"', b'"fp":"zz', 1))
    unreadable = runner.invoke(main, ["check", "--home", str(home)])
    assert unreadable.exit_code == 1
    assert "records.jsonl: the line at byte 0 is damaged" in unreadable.output
    assert "its record is left out" in unreadable.output
    assert "problem: records.jsonl: line at byte 0 is not a valid memtrails log line" in (
        unreadable.output
    )
    # A last line another program wrote: left out with a note naming its byte; the records
    # before it are all there.
    log.write_bytes(log.read_bytes().replace(b'"fp":"zz', b'"fp":"', 1))
    size = log.stat().st_size
    with log.open("ab") as f:
        f.write(b"GARBAGE{{{\n")
    appended = runner.invoke(main, ["status", "--home", str(home)])
    assert appended.exit_code == 0
    assert f"records.jsonl: the line at byte {size} is damaged" in appended.output
    os.truncate(log, size)
    assert runner.invoke(main, ["status", "--home", str(home)]).exit_code == 0
    missing = runner.invoke(main, ["check", "--home", str(tmp_path / "nothing")])
    assert missing.exit_code == 1 and "no memory folder at" in missing.output
    assert not (tmp_path / "nothing").exists()


@pytest.mark.slow
async def test_points_of_a_record_forgotten_past_the_checkpoint_are_pending_not_orphans(
    tmp_path: Path,
) -> None:
    folder = await _folder(tmp_path)
    log = folder / "records.jsonl"
    before = log.stat().st_size
    async with Memory.open(folder, embedder=HashingEmbedder()) as memory:
        assert await memory.forget("5", source="notes") == 1
    # As after a crash: the tombstone is in the log, the checkpoint still before it, and the
    # index still holds the record's points.
    tail = hashlib.sha256(log.read_bytes()[max(0, before - 4096) : before]).hexdigest()[:32]
    (folder / "index.json").write_text(json.dumps({"log_offset": before, "log_tail": tail}))
    forgotten = record_uid("notes", "5")
    async with Memory.open(folder, embedder=HashingEmbedder(), catch_up=False) as memory:
        assert memory.repairs == []
        vector = np.full(384, 1 / np.sqrt(384), dtype=np.float32)
        payload = {"uid": forgotten, "passage": 0, "kind": "note", "source": "notes"}
        await memory._folder.index.upsert(
            [IndexPoint(point_id(forgotten, 0), vector, SparseVector([], []), payload)]
        )
        report = await memory.check()
        assert report.ok, report.problems
        assert report.orphans == [] and report.pending == log.stat().st_size - before
    async with Memory.open(folder, embedder=HashingEmbedder()) as memory:  # catches up
        report = await memory.check()
        assert report.ok and report.pending == 0 and report.indexed == 9
