"""A log whose end a crash left zeroed (a run of NUL bytes where the filesystem had made the
file longer but not yet written its last block): cut as a damaged tail, said in plain words,
the records before it kept and found, the records lost in it named by source."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from memtrails import Memory
from memtrails.cli import main
from memtrails.folder import log as log_module
from memtrails.folder.log import RecordLog
from memtrails.testing import HashingEmbedder


def _notes(n: int) -> list[dict[str, str]]:
    return [{"id": f"n{i}", "text": f"note {i} on the walrus colony, count{i}"} for i in range(n)]


async def _folder(tmp_path: Path, n: int = 6) -> tuple[Path, list[bytes]]:
    folder = tmp_path / "mem"
    async with Memory.open(folder, embedder=HashingEmbedder()) as memory:
        await memory.ingest(_notes(n), name="notes")
    return folder, (folder / "records.jsonl").read_bytes().splitlines(keepends=True)


async def _found(folder: Path) -> tuple[list[str], list[str], int, Any]:
    async with Memory.open(folder, embedder=HashingEmbedder()) as memory:
        said = list(memory.repairs)
        hits = await memory.search("walrus colony", k=20)
        status = await memory.status()
        report = await memory.check()
    return said, sorted(h.id for h in hits), status.records, report


@pytest.mark.parametrize("zeros", [1, 4096, 200_000])
async def test_nul_bytes_after_the_last_line_are_cut_and_every_record_kept(
    tmp_path: Path, zeros: int
) -> None:
    folder, lines = await _folder(tmp_path)
    log = folder / "records.jsonl"
    log.write_bytes(b"".join(lines) + b"\0" * zeros)
    said, hits, records, report = await _found(folder)
    assert hits == [f"n{i}" for i in range(6)] and records == 6
    assert report.ok, report.problems
    assert said == [
        f"records.jsonl: its last {zeros} bytes were NUL bytes, not records (a crash left the "
        "end of the file zeroed before the disk had written it); they were cut off; the "
        f"{len(b''.join(lines))} bytes before them are whole and kept"
    ]
    assert log.read_bytes() == b"".join(lines)


@pytest.mark.parametrize("whole", [0, 1, 2])
async def test_records_in_the_zeroed_bytes_are_named_by_source(tmp_path: Path, whole: int) -> None:
    """The last block zeroed from inside a line on: the whole lines before are kept and
    found; what the folder held in the zeroed bytes is said lost, with what to do."""
    folder, lines = await _folder(tmp_path)
    kept = lines[: 6 - whole - 1]
    torn = lines[len(kept)][:40]
    zeroed = len(b"".join(lines)) - len(b"".join(kept)) - len(torn) + 512
    (folder / "records.jsonl").write_bytes(b"".join(kept) + torn + b"\0" * zeroed)
    said, hits, records, report = await _found(folder)
    assert hits == [f"n{i}" for i in range(len(kept))] and records == len(kept)
    assert report.ok, report.problems
    lost = whole + 1
    assert said[0] == (
        f"records.jsonl: its last {zeroed} bytes were NUL bytes, not records (a crash left the "
        "end of the file zeroed before the disk had written it); they were cut off, with the "
        f"unfinished line before them (40 bytes); the {len(b''.join(kept))} bytes before them "
        f"are whole and kept. {lost} record{'s' if lost > 1 else ''} added before the crash "
        f"{'were' if lost > 1 else 'was'} in the zeroed bytes and {'are' if lost > 1 else 'is'}"
        " lost from the log, of the sources 'notes' ("
        f"{lost}): add those sources again to get them back"
    )
    async with Memory.open(folder, embedder=HashingEmbedder()) as memory:
        assert memory.repairs == []  # said once
        report = await memory.ingest(_notes(6), name="notes")
        assert (report.added, report.unchanged) == (lost, 6 - lost)


async def test_a_log_zeroed_whole_opens_empty_and_says_so(tmp_path: Path) -> None:
    folder, lines = await _folder(tmp_path)
    size = len(b"".join(lines))
    (folder / "records.jsonl").write_bytes(b"\0" * size)
    said, hits, records, _ = await _found(folder)
    assert (hits, records) == ([], 0)
    assert said[0].startswith(f"records.jsonl: its last {size} bytes were NUL bytes")
    assert "6 records added before the crash were in the zeroed bytes" in said[0]


def test_an_unfinished_line_without_nul_bytes_is_said_as_before(tmp_path: Path) -> None:
    path = tmp_path / "records.jsonl"
    path.write_bytes(b'{"uid":"x"}\n{"uid":"torn')
    log = RecordLog(path)
    try:
        assert (log.repair(), log.zeroed, log.size) == (12, 0, 12)
    finally:
        log.close()


def test_appends_are_made_durable_with_a_full_sync_where_there_is_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """macOS's fsync leaves the data in the drive's cache, where a power cut turns the
    file's end into NUL bytes: the log asks for F_FULLFSYNC where the system has it."""
    calls: list[tuple[int, int]] = []

    class FullSync:
        F_FULLFSYNC = 51

        @staticmethod
        def fcntl(fd: int, op: int) -> int:
            calls.append((fd, op))
            return 0

    monkeypatch.setattr(log_module, "fcntl", FullSync)
    log = RecordLog(tmp_path / "records.jsonl")
    try:
        log.append([b'{"uid":"a"}\n'])
        assert calls and all(op == 51 for _, op in calls)
    finally:
        log.close()


@pytest.mark.slow
def test_the_cli_says_what_it_found_in_a_zeroed_log(
    tmp_path: Path, gsm8k_subset: Callable[[int], Path]
) -> None:
    home = tmp_path / "mem"
    runner = CliRunner()
    source = gsm8k_subset(5)
    assert runner.invoke(main, ["add", str(source), "--home", str(home)]).exit_code == 0
    log = home / "records.jsonl"
    lines = log.read_bytes().splitlines(keepends=True)
    log.write_bytes(b"".join(lines[:-1]) + b"\0" * (len(lines[-1]) + 1000))
    checked = runner.invoke(main, ["check", "--home", str(home)])
    assert checked.exit_code == 0, checked.output
    assert "were NUL bytes, not records (a crash left the end of the file zeroed" in (
        checked.output
    )
    assert f"lost from the log, of the sources {str(source)!r} (1)" in checked.output
    assert "4 lines, 4 live records" in checked.output
    again = runner.invoke(main, ["add", str(source), "--home", str(home)])
    assert again.exit_code == 0 and "added 1, updated 0, unchanged 4" in again.output
