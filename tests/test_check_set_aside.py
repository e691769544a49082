"""A byte flipped inside a log line keeps its length: `status` counts the record until
`check --repair` sets it aside; then status, the add report and the folder agree, and
adding the source again brings the record back (its saved position is dropped)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memtrails import Memory
from memtrails.add import add_path
from memtrails.testing import HashingEmbedder


def _source(path: Path, n: int) -> Path:
    with path.open("w", encoding="utf-8") as f:
        for i in range(n):
            f.write(json.dumps({"id": f"r{i}", "text": f"note {i} on the walrus " + "x" * 200}))
            f.write("\n")
    return path


def _damage(folder: Path, nths: list[int]) -> None:
    """Flip two hex digits of the fingerprint of each line ``nth``: the same length, so
    opening (which reads only where lines start) still counts its record."""
    log = folder / "records.jsonl"
    data = bytearray(log.read_bytes())
    lines = bytes(data).splitlines(keepends=True)
    for nth in nths:
        at = sum(len(line) for line in lines[:nth]) + len('{"uid":"') + 32 + len('","fp":"')
        data[at : at + 2] = b"zz"
    log.write_bytes(bytes(data))


async def _counts(folder: Path) -> tuple[int, int, dict[str, int]]:
    async with Memory.open(folder, create=False, catch_up=False, brief=True) as memory:
        status = await memory.status()
    return status.records, status.indexed, status.sources


@pytest.mark.parametrize("nths", [[3], [3, 7, 20]])
async def test_status_and_add_say_the_truth_after_check_repair(
    tmp_path: Path, nths: list[int]
) -> None:
    source = _source(tmp_path / "notes.jsonl", 40)
    folder = tmp_path / "mem"
    async with Memory.open(folder, embedder=HashingEmbedder()) as memory:
        assert (await add_path(memory, source)).added == 40
    _damage(folder, nths)
    lost = len(nths)
    name = str(source.resolve())
    async with Memory.open(folder, embedder=HashingEmbedder()) as memory:
        report = await memory.check(repair=True)
    assert report.records == 40 - lost
    dropped = [line for line in report.repaired if "dropped the saved position" in line]
    assert len(dropped) == 1 and repr(name) in dropped[0]
    assert await _counts(folder) == (40 - lost, 40 - lost, {name: 40 - lost})
    async with Memory.open(folder, embedder=HashingEmbedder()) as memory:
        again = await add_path(memory, source)
        assert (again.added, again.unchanged) == (lost, 40 - lost)
        assert all([await memory.get(f"r{n}", source=name) for n in nths])
    assert await _counts(folder) == (40, 40, {name: 40})
    async with Memory.open(folder, embedder=HashingEmbedder()) as memory:
        # The damaged lines stay in the log (it is never rewritten): said, records all there.
        report = await memory.check()
    assert report.records == 40 and len(report.problems) == lost
