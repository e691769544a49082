"""`memtrails reindex --payloads`: a folder indexed before points kept their scripts gets them
from the log, its vectors untouched (the test is about the payload: the hashing embedder), and
opening such a folder says so while its model is one the search asks for them with."""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from helpers import notes

from memtrails import Memory
from memtrails.cli import main
from memtrails.folder import points
from memtrails.folder.glance import glance
from memtrails.folder.index._base import SearchFilter, SparseVector
from memtrails.folder.manifest import Advice
from memtrails.keys import record_uid
from memtrails.testing import HashingEmbedder

NOTES = {
    "ko-backup": "서버 백업은 매일 새벽 세 시에 NAS에 저장되고, 스냅샷은 삼십 일 동안 보관한다.",
    "en-backup": "The server backups run every night at three and the snapshots are kept for a month.",
    "en-short": "OK",
}


async def test_an_older_folder_gets_its_passages_scripts_without_the_model(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    outside_latin = SearchFilter(outside=frozenset({"latin"}))
    with monkeypatch.context() as older:  # indexed as before points kept their scripts
        older.setattr(points, "passage_scripts", lambda *_: [])
        async with Memory.open(tmp_path / "m", embedder=HashingEmbedder()) as memory:
            await memory.ingest(notes(NOTES))
    async with Memory.open(tmp_path / "m", embedder=HashingEmbedder()) as memory:
        index = memory._open_folder().index
        query = await HashingEmbedder().embed_query("server backups")
        before, _ = await index.candidates(query, SparseVector([], []), 10, SearchFilter())
        assert (await index.candidates(query, SparseVector([], []), 10, outside_latin))[0] == []
        page, after = await index.points_missing("scripts", None, 10)
        assert len(page) == 3 and after is None

        assert await memory.reindex(payloads=True) == 2  # "OK" is too short to tell
        found, _ = await index.candidates(query, SparseVector([], []), 10, outside_latin)
        assert [h.uid for h in found] == [record_uid("notes", "ko-backup")]
        assert await memory.reindex(payloads=True) == 0  # nothing left to give
        after_scores = await index.candidates(query, SparseVector([], []), 10, SearchFilter())
        assert [(h.uid, h.score) for h in after_scores[0]] == [(h.uid, h.score) for h in before]
    async with Memory.open(tmp_path / "m", embedder=HashingEmbedder()) as memory:
        index = memory._open_folder().index
        found, _ = await index.candidates(query, SparseVector([], []), 10, outside_latin)
        assert len(found) == 1  # flushed: kept across opens


def _as_older(folder: Path) -> None:
    """Make the manifest an older memtrails's: it listed nothing its points keep."""
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    del manifest["points"]
    (folder / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")


def _told_to_reindex(repairs: list[str]) -> bool:
    return any("reindex --payloads" in r for r in repairs)


async def test_an_older_folder_is_told_to_give_its_points_their_scripts_until_it_has(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "m"
    async with Memory.open(folder) as memory:  # the default model reads across languages
        await memory.ingest(notes(NOTES))
        assert not _told_to_reindex(memory.repairs)
    assert json.loads((folder / "manifest.json").read_text())["points"] == {"fields": ["scripts"]}
    assert glance(folder) is not None
    _as_older(folder)
    assert glance(folder) is None  # `status` opens it, and so says it too
    # The CLI runs its own event loop: in a thread of its own, beside the test's.
    shown = await asyncio.to_thread(CliRunner().invoke, main, ["status", "--home", str(folder)])
    # A note, not a repair: nothing was changed.
    assert shown.exit_code == 0 and "note: the index's points" in shown.stderr, shown.stderr
    assert "repaired:" not in shown.stderr
    async with Memory.open(folder) as memory:
        assert _told_to_reindex(memory.repairs)
        assert all(isinstance(r, Advice) for r in memory.repairs)
        await memory.reindex(payloads=True)
    async with Memory.open(folder) as memory:
        assert not _told_to_reindex(memory.repairs)
    assert glance(folder) is not None


async def test_a_folder_whose_model_reads_one_language_or_that_holds_nothing_is_not_told(
    tmp_path: Path,
) -> None:
    one = tmp_path / "hashing"
    async with Memory.open(one, embedder=HashingEmbedder()) as memory:
        await memory.ingest(notes(NOTES))
    empty = tmp_path / "empty"
    async with Memory.open(empty):
        pass
    for folder, embedder in ((one, HashingEmbedder()), (empty, None)):
        _as_older(folder)
        async with Memory.open(folder, embedder=embedder) as memory:
            assert not _told_to_reindex(memory.repairs)


async def test_an_older_folder_whose_index_is_rebuilt_is_not_told_again(tmp_path: Path) -> None:
    folder = tmp_path / "m"
    async with Memory.open(folder) as memory:
        await memory.ingest(notes(NOTES))
    _as_older(folder)
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    manifest["keywords"] = {"weight": "an earlier one"}
    (folder / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    shutil.rmtree(folder / "index")  # rebuilt from the log: every point as points are now
    async with Memory.open(folder) as memory:
        assert any("emptied and is rebuilt" in r for r in memory.repairs), memory.repairs
        assert not any(isinstance(r, Advice) for r in memory.repairs), memory.repairs
        assert (await memory.status()).indexed == len(NOTES)
    async with Memory.open(folder) as memory:
        assert memory.repairs == []
