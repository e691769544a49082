"""`memtrails reindex --payloads`: a folder indexed before points kept their scripts gets them
from the log, its vectors untouched (the test is about the payload: the hashing embedder)."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import notes

from memtrails import Memory
from memtrails.folder import points
from memtrails.folder.index._base import SearchFilter, SparseVector
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
