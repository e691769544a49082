"""A memory folder whose manifest.json is lost or damaged: every command says what happened
and what to do, and `memtrails check --repair` gives it a new manifest and rebuilds the
index from the records, losing none. Before, the folder said "no memory folder at ...;
create one with `memtrails add`", and `add` refused it as someone else's folder: its
records were out of reach though all were in records.jsonl."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from memtrails import FolderFormatError, Memory, MemoryRecord
from memtrails.cli import main
from memtrails.folder.recover import lost_manifest, recover_manifest
from memtrails.testing import HashingEmbedder

pytestmark = pytest.mark.timeout(300)

RECORDS = [MemoryRecord(id=f"r{n}", text=f"pears and plums, basket {n}") for n in range(40)]


async def _folder(home: Path) -> None:
    async with Memory.open(home, embedder=HashingEmbedder()) as memory:
        await memory.ingest(RECORDS)


@pytest.mark.parametrize("damage", ["missing", "garbage", "cut", "array"])
async def test_a_lost_manifest_is_written_anew_and_the_index_rebuilt(
    tmp_path: Path, damage: str
) -> None:
    home = tmp_path / "m"
    await _folder(home)
    manifest = home / "manifest.json"
    text = manifest.read_bytes()
    if damage == "missing":
        manifest.unlink()
    else:
        manifest.write_bytes(
            {"garbage": b"\x86\xff" * 40, "cut": text[: len(text) // 2], "array": b"[]"}[damage]
        )
    assert lost_manifest(home) is not None
    with pytest.raises(FolderFormatError, match="check --repair") as said:
        async with Memory.open(home, embedder=HashingEmbedder(), create=False):
            pass
    assert "records.jsonl" in str(said.value)
    done = await recover_manifest(home, HashingEmbedder())
    assert lost_manifest(home) is None and "index removed" in done[0]
    assert (home / "manifest.json.damaged").exists() == (damage != "missing")
    async with Memory.open(home, embedder=HashingEmbedder(), create=False) as memory:
        hits = await memory.search("pears and plums", k=100)
        assert sorted(h.id for h in hits) == sorted(r.id for r in RECORDS)
        assert (await memory.check()).ok


async def test_a_manifest_of_another_format_is_not_taken_for_lost(tmp_path: Path) -> None:
    """A newer memtrails's folder is never overwritten: its manifest is not damaged."""
    home = tmp_path / "m"
    await _folder(home)
    manifest = json.loads((home / "manifest.json").read_text())
    (home / "manifest.json").write_text(json.dumps({**manifest, "format": 99}))
    assert lost_manifest(home) is None
    with pytest.raises(FolderFormatError, match="nothing to recover"):
        await recover_manifest(home, HashingEmbedder())
    assert json.loads((home / "manifest.json").read_text())["format"] == 99


def test_the_cli_names_the_repair_and_check_repair_makes_it(tmp_path: Path) -> None:
    """With the folder's own (default) model: the records come back to search."""
    home = tmp_path / "m"

    async def make() -> None:
        async with Memory.open(home) as memory:
            await memory.ingest(RECORDS[:5])

    asyncio.run(make())
    (home / "manifest.json").unlink()
    runner = CliRunner()
    for args in (["search", "pears"], ["status"], ["check"]):
        result = runner.invoke(main, [*args, "--home", str(home)])
        assert result.exit_code == 1 and "check --repair" in result.output, result.output
    result = runner.invoke(main, ["check", "--repair", "-q", "--home", str(home)])
    assert result.exit_code == 0, result.output
    assert "manifest.json written anew" in result.output and result.output.endswith("ok\n")
    result = runner.invoke(main, ["search", "basket 3", "--json", "--home", str(home)])
    assert result.exit_code == 0 and len(json.loads(result.output)) == 5
