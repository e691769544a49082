"""`status` reads the index's counts kept with the checkpoint, and never trusts stale ones."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from memtrails import Memory, from_jsonl
from memtrails.folder import disk
from memtrails.folder.manifest import read_checkpoint_counts
from memtrails.folder.status import MemoryStatus
from memtrails.testing import HashingEmbedder


def _source(path: Path, n: int, long_every: int = 5) -> Path:
    with path.open("w", encoding="utf-8") as f:
        for i in range(n):
            # Some long texts: several passages a record, so points and records differ.
            words = " ".join(f"w{i}x{j}" for j in range(400 if i % long_every == 0 else 8))
            f.write(json.dumps({"id": str(i), "text": f"record {i} {words}"}) + "\n")
    return path


async def _import(folder: Path, source: Path) -> None:
    async with Memory.open(folder, embedder=HashingEmbedder()) as memory:
        await memory.ingest(from_jsonl(source), batch=16)


async def _status(folder: Path) -> tuple[int, int, str, bool]:
    """Status as the CLI takes it; with whether the index was loaded for it."""
    async with Memory.open(folder, create=False, catch_up=False, brief=True) as memory:
        st = await memory.status()
        loaded = memory._open_folder().index.opened  # type: ignore[attr-defined]
    return st.indexed, st.points, st.counted, loaded


async def _counted_from_index(folder: Path) -> tuple[int, int]:
    async with Memory.open(folder, create=False, embedder=HashingEmbedder()) as memory:
        await memory.search("record 3")  # loads the index: status counts it
        st = await memory.status()
    assert st.counted == "index"
    return st.indexed, st.points


async def test_status_after_a_closed_import_reads_the_counts_without_loading_the_index(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "mem"
    await _import(folder, _source(tmp_path / "a.jsonl", 40))
    indexed, points, counted, loaded = await _status(folder)
    assert (counted, loaded) == ("checkpoint", False)
    assert (indexed, points) == await _counted_from_index(folder)
    assert indexed == 40

    # A second import that replaces and forgets records: the counts follow.
    await _import(folder, _source(tmp_path / "a.jsonl", 30, long_every=3))
    async with Memory.open(folder, embedder=HashingEmbedder()) as memory:
        assert await memory.forget("7") == 1
    indexed, points, counted, loaded = await _status(folder)
    assert (counted, loaded) == ("checkpoint", False)
    assert (indexed, points) == await _counted_from_index(folder)


async def test_counts_are_dropped_while_the_index_changes_so_a_crash_leaves_none_standing(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "mem"
    source = _source(tmp_path / "a.jsonl", 20)
    await _import(folder, source)
    assert read_checkpoint_counts(folder) is not None
    async with Memory.open(folder, embedder=HashingEmbedder()) as memory:
        assert await memory.forget("3") == 1
        await memory._open_folder().writer.flush()
        # What a crash now would leave: the checkpoint at the log's end, and no counts.
        size = (folder / "records.jsonl").stat().st_size
        kept = read_checkpoint_counts(folder)
        assert kept is None or kept[0] != size
        # A check's repair deletes points without moving the log: counts dropped first.
        await memory._open_folder().writer.remove_points(["4"])
        assert read_checkpoint_counts(folder) is None


async def test_a_checkpoint_without_counts_is_counted_from_the_index(tmp_path: Path) -> None:
    folder = tmp_path / "mem"
    await _import(folder, _source(tmp_path / "a.jsonl", 25))
    checkpoint = folder / "index.json"
    data = json.loads(checkpoint.read_text(encoding="utf-8"))
    # A folder of an older version; then one whose log has lines past the checkpoint.
    del data["records"], data["points"]
    checkpoint.write_text(json.dumps(data), encoding="utf-8")
    assert await _status(folder) == (*(await _counted_from_index(folder)), "index", True)
    data = json.loads(checkpoint.read_text(encoding="utf-8"))
    data["log_offset"] = 0
    checkpoint.write_text(json.dumps({**data, "records": 999, "points": 999}), encoding="utf-8")
    indexed, points, counted, _ = await _status(folder)
    assert (indexed, counted) == (25, "index") and points != 999


# What `memtrails status` must not load: the model runtime, the Qdrant clients, numpy, the
# HTTP client, the stream library, the date parser (seconds of a command's start together),
# ICU and the progress bar's library (which reads package metadata: 40 ms of its 0.2 s).
HEAVY = {"onnxruntime", "tokenizers", "qdrant_edge", "qdrant_client", "numpy", "httpx"}
HEAVY |= {"aiostream", "dateparser", "icu", "tqdm"}

_STATUS_THEN_MODULES = """
import json, runpy, sys
sys.argv = ["memtrails", "status", "--json", "--home", sys.argv[1]]
try:
    runpy.run_module("memtrails", run_name="__main__", alter_sys=True)
except SystemExit as exit:
    assert not exit.code, exit.code
print(json.dumps(sorted(sys.modules)), file=sys.stderr)
"""


async def test_the_status_command_loads_neither_the_model_runtime_nor_the_index(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "mem"
    await _import(folder, _source(tmp_path / "a.jsonl", 12))
    proc = subprocess.run(
        [sys.executable, "-c", _STATUS_THEN_MODULES, str(folder)],
        capture_output=True,
        text=True,
        check=True,
    )
    status = json.loads(proc.stdout)
    assert (status["records"], status["indexed"], status["counted"]) == (12, 12, "checkpoint")
    loaded = set(json.loads(proc.stderr.strip().splitlines()[-1]))
    assert "memtrails.folder.glance" in loaded  # the modules of the process that ran it
    assert sorted(m for m in loaded if m.split(".")[0] in HEAVY) == []


# -- disk use: the index's part kept with the counts, not walked ---------------------------------


def _du(folder: Path) -> int:
    """What `du` says the folder takes (blocks, not sizes), counted here file by file."""
    return sum(p.lstat().st_blocks * 512 for p in folder.rglob("*") if not p.is_dir())


async def _status_and_du(folder: Path, walked: list[Path]) -> tuple[MemoryStatus, int]:
    """Status as the CLI takes it, and the folder's disk use measured while it is open."""
    async with Memory.open(folder, create=False, catch_up=False, brief=True) as memory:
        walked.clear()
        st = await memory.status()
        return st, _du(folder)


@pytest.fixture
def walked(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """The folders `status` walks file by file."""
    seen: list[Path] = []
    walk = disk.disk_bytes

    def spy(path: Path) -> int:
        seen.append(path)
        return walk(path)

    monkeypatch.setattr(disk, "disk_bytes", spy)
    return seen


async def test_status_takes_the_index_disk_use_kept_at_the_close_after_imports_and_forgets(
    tmp_path: Path, walked: list[Path]
) -> None:
    folder = tmp_path / "mem"
    await _import(folder, _source(tmp_path / "a.jsonl", 40))
    st, du = await _status_and_du(folder, walked)
    assert (st.disk_bytes, st.disk_counted, st.counted) == (du, "checkpoint", "checkpoint")
    assert walked == []  # the index's files (hundreds; 13k at 1M records) were not read

    await _import(folder, _source(tmp_path / "a.jsonl", 90, long_every=2))
    async with Memory.open(folder, embedder=HashingEmbedder()) as memory:
        assert await memory.forget("7") == 1
    st, du = await _status_and_du(folder, walked)
    assert (st.records, st.disk_bytes, st.disk_counted) == (89, du, "checkpoint")
    assert walked == []


async def test_status_walks_the_index_when_its_outline_changed_since_the_close(
    tmp_path: Path, walked: list[Path]
) -> None:
    folder = tmp_path / "mem"
    await _import(folder, _source(tmp_path / "a.jsonl", 20))
    kept = read_checkpoint_counts(folder)
    assert kept is not None and kept.index_disk is not None
    # A segment made behind the folder's back (another program, a restored backup): its
    # outline is not the one kept, so neither the counts nor the disk use are trusted.
    (folder / "index" / "segments" / "restored").mkdir()
    (folder / "index" / "segments" / "restored" / "page.dat").write_bytes(b"x" * 20_000)
    st, du = await _status_and_du(folder, walked)
    assert (st.counted, st.disk_counted, st.disk_bytes) == ("index", "walk", du)
    assert folder / "index" in walked


_KILLED_AFTER_APPEND = """
import asyncio, os, sys
from memtrails import Memory, from_jsonl
from memtrails.testing import HashingEmbedder

async def main(folder, path):
    def killed(report):
        if report.added >= 8:  # a batch in the log; the checkpoint waits (2 s)
            os._exit(9)

    memory = await Memory.open(folder, embedder=HashingEmbedder())
    await memory.ingest(from_jsonl(path), batch=8, on_progress=killed)

asyncio.run(main(sys.argv[1], sys.argv[2]))
"""


async def test_status_after_a_kill_between_log_append_and_checkpoint_counts_and_walks(
    tmp_path: Path, walked: list[Path]
) -> None:
    folder = tmp_path / "mem"
    await _import(folder, _source(tmp_path / "a.jsonl", 20))
    proc = subprocess.run(
        [
            sys.executable,
            "-c",
            _KILLED_AFTER_APPEND,
            str(folder),
            str(_source(tmp_path / "b.jsonl", 35)),
        ],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 9, proc.stderr
    st, du = await _status_and_du(folder, walked)
    assert st.records == 20 + 8 and st.pending_bytes > 0  # the log grew past the checkpoint
    assert (st.counted, st.disk_counted, st.disk_bytes) == ("index", "walk", du)
    # Reopened for writing, the catch-up indexes the lines past the checkpoint; its close
    # keeps the counts and disk use again.
    async with Memory.open(folder, embedder=HashingEmbedder()):
        pass
    st, du = await _status_and_du(folder, walked)
    assert (st.indexed, st.counted, st.disk_counted, st.disk_bytes) == (
        28,
        "checkpoint",
        "checkpoint",
        du,
    )


# -- per-source counts: kept by the table's close, not grouped by each status -------------------


async def _sources_and_queries(folder: Path) -> tuple[list[int], list[str]]:
    """Status's per-source counts (by name), and the table queries status ran for them."""
    async with Memory.open(folder, create=False, catch_up=False, brief=True) as memory:
        queries: list[str] = []
        memory._open_folder().table._db.set_trace_callback(queries.append)  # type: ignore[attr-defined]
        st = await memory.status()
    return [n for _, n in sorted(st.sources.items())], queries


async def test_status_of_several_sources_takes_the_counts_kept_at_the_last_close(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "mem"
    await _import(folder, _source(tmp_path / "a.jsonl", 20))
    await _import(folder, _source(tmp_path / "b.jsonl", 30))
    counts, queries = await _sources_and_queries(folder)
    assert counts == [20, 30]
    assert not [q for q in queries if "GROUP BY" in q]  # 80-125 ms at a million records

    async with Memory.open(folder, embedder=HashingEmbedder()) as memory:
        assert await memory.forget("7", source=str((tmp_path / "b.jsonl").resolve())) == 1
    counts, queries = await _sources_and_queries(folder)
    assert counts == [20, 29] and not [q for q in queries if "GROUP BY" in q]

    # Killed after a batch reached the log: the kept counts are not the table's, so it counts.
    proc = subprocess.run(
        [
            sys.executable,
            "-c",
            _KILLED_AFTER_APPEND,
            str(folder),
            str(_source(tmp_path / "c.jsonl", 35)),
        ],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 9, proc.stderr
    counts, queries = await _sources_and_queries(folder)
    assert counts == [20, 29, 8] and [q for q in queries if "GROUP BY" in q]
