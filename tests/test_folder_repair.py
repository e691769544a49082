"""A damaged memory folder is noticed on open and repaired from the log, and says so."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from memtrails import Memory
from memtrails.add import add_path
from memtrails.cli import main
from memtrails.testing import HashingEmbedder


async def _import(folder: Path, path: Path, embedder: Any) -> tuple[int, int]:
    async with Memory.open(folder, embedder=embedder) as memory:
        report = await add_path(memory, path)
    return report.added, report.unchanged


def _cut_log_at_line(folder: Path, keep_lines: int) -> int:
    log = folder / "records.jsonl"
    lines = log.read_bytes().splitlines(keepends=True)
    log.write_bytes(b"".join(lines[:keep_lines]))
    return len(lines) - keep_lines


@pytest.mark.slow
async def test_a_truncated_log_is_re_read_not_reported_unchanged(
    tmp_path: Path, gsm8k_subset: Callable[[int], Path], embedder: Any
) -> None:
    source = gsm8k_subset(40)
    folder = tmp_path / "mem"
    assert await _import(folder, source, embedder) == (40, 0)
    lost = _cut_log_at_line(folder, 15)
    assert lost == 25
    async with Memory.open(folder, embedder=embedder) as memory:
        said = " | ".join(memory.repairs)
        status = await memory.status()
        assert (status.records, status.indexed) == (15, 15)  # no orphan points left
        report = await add_path(memory, source)
        assert (report.added, report.unchanged) == (25, 15)
        status = await memory.status()
        assert (status.records, status.indexed) == (40, 40)
    assert "index.json points past the end of records.jsonl" in said
    assert "sources.json: records.jsonl is shorter" in said


@pytest.mark.slow
async def test_a_deleted_index_is_rebuilt_from_the_log(
    tmp_path: Path, gsm8k_subset: Callable[[int], Path], embedder: Any
) -> None:
    source = gsm8k_subset(20)
    folder = tmp_path / "mem"
    await _import(folder, source, embedder)
    shutil.rmtree(folder / "index")
    async with Memory.open(folder, embedder=embedder) as memory:
        said = memory.repairs
        hits = await memory.search("how many eggs does the duck lay", k=3)
        status = await memory.status()
    assert said == [
        "the index holds 0 records where records.jsonl has 20: the index was "
        "emptied and is rebuilt from records.jsonl"
    ]
    assert status.indexed == 20 and hits
    assert await _import(folder, source, embedder) == (0, 20)


@pytest.mark.slow
async def test_a_checkpoint_into_the_middle_of_a_line_is_reset(
    tmp_path: Path, gsm8k_subset: Callable[[int], Path], embedder: Any
) -> None:
    source = gsm8k_subset(10)
    folder = tmp_path / "mem"
    await _import(folder, source, embedder)
    (folder / "index.json").write_text(json.dumps({"log_offset": 100}))
    async with Memory.open(folder, embedder=embedder) as memory:
        said = memory.repairs
        status = await memory.status()
        hits = await memory.search("eggs", k=1)
    assert len(said) == 1 and "middle of a line of records.jsonl (byte 100)" in said[0]
    assert status.indexed == 10 and hits
    offset = json.loads((folder / "index.json").read_text())["log_offset"]
    assert offset == (folder / "records.jsonl").stat().st_size


@pytest.mark.slow
def test_the_cli_prints_what_opening_repaired(
    tmp_path: Path, gsm8k_subset: Callable[[int], Path]
) -> None:
    source = gsm8k_subset(5)
    home = tmp_path / "mem"
    runner = CliRunner()
    assert runner.invoke(main, ["add", str(source), "--home", str(home)]).exit_code == 0
    (home / "index.json").write_text("{not json")
    result = runner.invoke(main, ["status", "--home", str(home)])
    assert result.exit_code == 0, result.output
    assert "repaired: index.json is unreadable" in result.output
    again = runner.invoke(main, ["add", str(source), "--home", str(home)])
    assert again.exit_code == 0 and "repaired" not in again.output
    assert "added 0, updated 0, unchanged 5" in again.output


@pytest.mark.slow
def test_an_import_that_finds_nothing_new_never_loads_the_index(tmp_path: Path) -> None:
    """Opening a folder closed cleanly leaves its index unloaded until something needs it."""
    folder, source = tmp_path / "mem", tmp_path / "notes.jsonl"
    source.write_text(
        "".join(json.dumps({"id": str(i), "text": f"note {i}"}) + "\n" for i in range(30))
    )
    script = f"""
import asyncio, json, sys
from memtrails import Memory
from memtrails.add import add_path
from memtrails.testing import HashingEmbedder

async def main() -> None:
    async with Memory.open({str(folder)!r}, embedder=HashingEmbedder()) as memory:
        report = await add_path(memory, __import__("pathlib").Path({str(source)!r}))
        loaded_after_add = "qdrant_edge" in sys.modules
        first = memory.repairs
        status = await memory.status()
    print(json.dumps([report.added, report.unchanged, loaded_after_add, status.indexed, first]))

asyncio.run(main())
"""
    runs = []
    for _ in range(2):
        done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        runs.append(json.loads(done.stdout.splitlines()[-1]))
    # The first run creates the index and writes to it; the second finds nothing new and
    # loads the index only when status asks it for its counts.
    assert runs[0] == [30, 0, True, 30, []]
    assert runs[1] == [0, 30, False, 30, []]


@pytest.mark.slow
@pytest.mark.parametrize("first_use", ["search", "write"])
async def test_an_index_emptied_behind_the_folders_back_is_found_on_its_first_use(
    tmp_path: Path, first_use: str
) -> None:
    from memtrails.folder.index import EdgeIndex
    from memtrails.folder.modes import tighten

    folder = tmp_path / "mem"
    rows = [{"id": str(i), "text": f"the duck lays {i} eggs"} for i in range(20)]
    async with Memory.open(folder, embedder=HashingEmbedder()) as memory:
        await memory.ingest(rows)
    index = await EdgeIndex.open(folder / "index", dims=HashingEmbedder().dims)
    await index.clear()
    await index.aclose()
    tighten(folder)  # the shard wrote with the umask: not what this test is about

    async with Memory.open(folder, embedder=HashingEmbedder()) as memory:
        at_open = memory.repairs
        if first_use == "search":
            await memory.search("duck eggs", k=3)
        else:  # the first use is the writer's own, under its lock
            await memory.ingest([{"id": "new", "text": "the hen lays one egg"}])
        after = memory.repairs
    assert at_open == []
    assert len(after) == 1
    assert after[0].startswith("the index holds 0 records where records.jsonl has")
    assert "emptied (on its first use)" in after[0]
    live = 20 if first_use == "search" else 21
    async with Memory.open(folder, embedder=HashingEmbedder()) as memory:
        status = await memory.status()
        hits = await memory.search("duck eggs", k=3)
        assert memory.repairs == []
    assert (status.records, status.indexed) == (live, live) and hits
