"""Word-by-word reordering of the first results (folder/reorder.py) and its word-piece cache."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from helpers import notes

from memtrails import Memory
from memtrails.embedding.pieces import PieceSums
from memtrails.folder.reorder import CACHE_FILE, PieceCache, maxsim, reorder
from memtrails.folder.search import SearchHit


def _unit(rows: list[list[float]]) -> np.ndarray:
    m = np.asarray(rows, dtype=np.float32)
    return m / np.linalg.norm(m, axis=1, keepdims=True)


def _hit(name: str, score: float) -> SearchHit:
    return SearchHit(score, name, name, None, "note", None, None, "notes", name)


def test_a_passage_holding_the_querys_words_moves_up(tmp_path: Path) -> None:
    """Pieces 1 and 2 are the query's words; the second result holds both, the first
    neither: the second comes first, the third (one of them) stays in the middle."""
    cache = PieceCache(tmp_path, "m:1")
    vectors = _unit([[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]])
    # Each piece seen twice, in contexts that average to its vector.
    cache.add(PieceSums(np.arange(1, 5), 2 * vectors, np.full(4, 2)))
    query = vectors[:2]
    hits = [_hit("neither", 1.02), _hit("both", 1.0), _hit("one", 1.01)]
    scores = [maxsim(query, cache.vectors(np.asarray(p))) for p in ([3, 4], [1, 2, 3], [1, 4])]
    assert scores == pytest.approx([0.0, 1.0, 0.5], abs=1e-3)
    assert [h.id for h in reorder(hits, scores, 1.0)] == ["both", "one", "neither"]
    # All alike: the order is the fused score's.
    assert [h.id for h in reorder(hits, [0.5, 0.5, 0.5], 1.0)] == ["neither", "both", "one"]


def test_the_cache_keeps_running_means_across_saves(tmp_path: Path) -> None:
    cache = PieceCache(tmp_path, "m:1")
    cache.add(PieceSums(np.asarray([7]), np.asarray([[2.0, 0.0]], np.float32), np.asarray([1])))
    cache.save()
    again = PieceCache(tmp_path, "m:1")
    again.add(
        PieceSums(
            np.asarray([7, 9]), np.asarray([[0, 2.0], [1, 1]], np.float32), np.ones(2, np.int64)
        )
    )
    again.save()
    read = PieceCache(tmp_path, "m:1")
    assert read.pieces == 2
    # Piece 7: the mean of (2, 0) and (0, 2), as a unit vector.
    assert read.vectors(np.asarray([7]))[0] == pytest.approx([0.7071, 0.7071], abs=1e-3)
    # Another model's folder does not read it.
    assert PieceCache(tmp_path, "other:2").pieces == 0


NOTES = {
    "boiler": "The boiler service is booked for the first Monday of October; the engineer "
    "needs access to the loft and the gas meter.",
    "passport": "My passport expires in March next year, so I must renew it before the summer "
    "trip; the photo booth is at the post office.",
    "bike": "The bike's rear brake pads were replaced at the shop on Elm Street; the front "
    "tyre still loses air slowly.",
    "garden": "Tomatoes on the balcony get water every second morning and fertiliser once a month.",
}


@pytest.mark.slow
async def test_a_folder_with_a_damaged_or_missing_cache_still_searches(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The default model keeps a cache as it imports; a damaged one, then none at all, only
    means results in the fused order and one log line, never an error."""
    folder = tmp_path / "m"
    async with Memory.open(folder) as memory:
        await memory.ingest(notes(NOTES))
        first = await memory.search("When does my passport expire?", k=2)
    assert (folder / CACHE_FILE).stat().st_size > 0
    assert first[0].id == "passport" and len(first) == 2
    (folder / CACHE_FILE).write_bytes(b"not a cache")
    with caplog.at_level(logging.WARNING, logger="memtrails.folder.reorder"):
        async with Memory.open(folder) as memory:
            damaged = await memory.search("When does my passport expire?", k=2)
    assert damaged[0].id == "passport"
    assert any("word-piece cache" in r.message for r in caplog.records)
    (folder / CACHE_FILE).unlink()
    async with Memory.open(folder) as memory:
        assert (await memory.search("brake pads", k=1))[0].id == "bike"
        # reindex builds it again from the log.
        await memory.reindex()
    assert PieceCache(folder, "x").pieces == 0  # another model's name reads nothing
    assert (folder / CACHE_FILE).stat().st_size > 0


async def test_minilm_folders_keep_no_cache(tmp_path: Path, embedder: object) -> None:
    """MiniLM gained nothing from the reordering (benchmarks/README.md): no cache is kept."""
    async with Memory.open(tmp_path / "m", embedder=embedder) as memory:  # type: ignore[arg-type]
        await memory.ingest(notes(NOTES))
        assert (await memory.search("brake pads", k=1))[0].id == "bike"
    assert not (tmp_path / "m" / CACHE_FILE).exists()


async def test_pieces_come_from_the_same_runs_and_a_long_text_holds_one_run_at_a_time(
    embedder: Any,
) -> None:
    """The import's pieces cost no second model run and no memory that grows with the text:
    each run's token vectors are summed and dropped before the next run."""
    import tracemalloc

    from memtrails.embedding.pieces import embed_with_pieces

    text = " ".join(f"word{i % 997} note{i % 31}" for i in range(6000))  # ~16k pieces
    plain = await embedder.embed([text])
    got: list[PieceSums] = []
    tracemalloc.start()
    try:
        with_pieces = await embed_with_pieces(embedder, [text], got.append)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(with_pieces[0]) == len(plain[0])
    assert all(
        np.array_equal(a.vector, b.vector) for a, b in zip(with_pieces[0], plain[0], strict=True)
    )
    assert len(got) > 10  # one sum per model run
    pieces = sum(int(s.counts.sum()) for s in got)
    assert pieces >= 10_000
    # All the text's token vectors at once would be pieces x dims x 4 bytes (~24 MiB here).
    assert peak < pieces * embedder.dims * 4 / 2
