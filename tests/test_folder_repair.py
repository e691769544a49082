"""A damaged memory folder is noticed on open and repaired from the log, and says so."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from memtrails import Memory
from memtrails.add import add_path
from memtrails.cli import main


async def _import(folder: Path, path: Path, embedder: Any) -> tuple[int, int]:
    async with Memory.open(folder, embedder=embedder) as memory:
        report = await add_path(memory, path)
    return report.added, report.unchanged


def _cut_log_at_line(folder: Path, keep_lines: int) -> int:
    log = folder / "records.jsonl"
    lines = log.read_bytes().splitlines(keepends=True)
    log.write_bytes(b"".join(lines[:keep_lines]))
    return len(lines) - keep_lines


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
