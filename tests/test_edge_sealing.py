"""The Edge shard seals its open segment as points arrive, and finds exactly what it found before."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest
import qdrant_edge as qe

from memtrails.embedding import OnnxEmbedder
from memtrails.folder.index import EdgeIndex, IndexPoint, SearchFilter, SparseVector
from memtrails.folder.index import _edge_settings as edge_settings
from memtrails.folder.index import edge as edge_module
from memtrails.folder.index._edge_settings import shard_config
from memtrails.folder.points import points_for
from memtrails.items import Staged
from memtrails.records import At, MemoryRecord
from memtrails.words import keyword_vector

# Each test grows a real shard past a seal (10,000 points and more).
pytestmark = pytest.mark.slow

T0 = 1_700_000_000_000
SEAL = 16  # points per seal in these tests (a real shard seals every 10,000)


def sparse(text: str) -> SparseVector:
    kv = keyword_vector(text)
    return SparseVector(list(kv), list(kv.values()))


@pytest.fixture(scope="module")
def corpus(corpora: Path, embedder: OnnxEmbedder) -> Iterator[tuple[list[IndexPoint], list[str]]]:
    """80 MT-Bench first turns as points (real model), and their second turns as queries."""
    lines = (corpora / "jsonl" / "fastchat-mt_bench-question.jsonl").read_text().splitlines()
    rows = [json.loads(line) for line in lines]
    texts = [row["turns"][0] for row in rows]

    async def build() -> list[IndexPoint]:
        staged = [
            Staged(
                MemoryRecord(
                    id=f"q{i}",
                    text=text,
                    kind="prompt",
                    author=rows[i]["category"],
                    at=At(T0 + i * 60_000),
                    source="mt-bench",
                ),
                uid=f"q{i}",
                fp="",
                passages=passages,
            )
            for i, (text, passages) in enumerate(
                zip(texts, await embedder.embed(texts), strict=True)
            )
        ]
        return points_for(staged)

    queries = [row["turns"][1] for row in rows[::4] if len(row["turns"]) > 1]
    yield asyncio.run(build()), queries


def segments(folder: Path) -> int:
    return sum(1 for p in (folder / "segments").iterdir() if p.is_dir())


def quantized(folder: Path) -> int:
    """Segments whose dense vectors have an int8 copy (sealed ones: the scan reads it)."""
    return sum(1 for _ in (folder / "segments").glob("*/vector_storage-dense/quantized.data"))


async def fill(folder: Path, points: Sequence[IndexPoint], batch: int) -> EdgeIndex:
    index = await EdgeIndex.open(folder, dims=384)
    for i in range(0, len(points), batch):
        await index.upsert(points[i : i + batch])
    await index.flush()
    return index


def made_before_int8_copies(folder: Path) -> None:
    """Create an empty shard as one was made before sealed segments kept int8 copies."""
    qe.EdgeShard.create(
        str(folder), shard_config(384, sealing=True, seal_every=SEAL, quantize=False)
    ).close()


Found = list[tuple[list[tuple[str, int]], list[float], dict[tuple[str, int], float]]]


async def results(index: EdgeIndex, embedder: OnnxEmbedder, queries: Sequence[str]) -> Found:
    """Each query's candidates by meaning (top 10: ranked passages and their scores) and by
    words (every match with its score: hits of equal score come in the shard's own order),
    unfiltered and filtered by author and by time."""
    found: Found = []
    for n, query in enumerate(queries):
        dense = await embedder.embed_query(query)
        where = [
            SearchFilter(),
            SearchFilter(author="writing" if n % 2 else "math"),
            SearchFilter(since_ms=T0 + 20 * 60_000, until_ms=T0 + 60 * 60_000),
        ]
        for w in where:
            meaning, _ = await index.candidates(dense, sparse(query), 10, w)
            _, words = await index.candidates(dense, sparse(query), 1000, w)
            found.append(
                (
                    [(h.uid, int(h.payload["passage"])) for h in meaning],
                    [h.score for h in meaning],
                    {(h.uid, int(h.payload["passage"])): h.score for h in words},
                )
            )
    return found


def assert_same(found: Found, expected: Found) -> None:
    # Scores summed over other segment layouts may differ in the last float bits.
    assert len(found) == len(expected)
    for (ids, scores, words), (ids0, scores0, words0) in zip(found, expected, strict=True):
        assert ids == ids0
        assert scores == pytest.approx(scores0, rel=1e-5)
        assert words.keys() == words0.keys()
        assert [words[k] for k in words0] == pytest.approx(list(words0.values()), rel=1e-5)


async def test_sealed_shard_finds_the_same_top_10_and_reopens(
    tmp_path: Path,
    corpus: tuple[list[IndexPoint], list[str]],
    embedder: OnnxEmbedder,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    points, queries = corpus
    # One shard that never seals: the open segment holds every point, as before sealing.
    monkeypatch.setattr(edge_module, "SEAL_EVERY", 10**9)
    whole = await fill(tmp_path / "whole", points, len(points))
    monkeypatch.setattr(edge_module, "SEAL_EVERY", SEAL)
    sealed = await fill(tmp_path / "sealed", points, 8)
    try:
        assert segments(tmp_path / "whole") == 1
        assert segments(tmp_path / "sealed") >= len(points) // (2 * SEAL)
        # The sealed segments are searched through their int8 copies, then scored again
        # from the fp32 vectors: the same passages, order and scores as the exact scan.
        assert quantized(tmp_path / "whole") == 0
        assert quantized(tmp_path / "sealed") >= len(points) // (2 * SEAL)
        expected = await results(whole, embedder, queries)
        # The queries do find things, by meaning and by words.
        assert all(len(meaning) == 10 for meaning, _, _ in expected[::3])
        assert sum(len(words) for _, _, words in expected) > 5 * len(queries)
        assert_same(await results(sealed, embedder, queries), expected)
        assert await sealed.count_points() == len(points)
    finally:
        await whole.aclose()
        await sealed.aclose()
    reopened = await EdgeIndex.open(tmp_path / "sealed", dims=384)
    try:
        assert await reopened.count_points() == len(points)
        assert await reopened.count_records() == len({p.payload["uid"] for p in points})
        assert_same(await results(reopened, embedder, queries), expected)
    finally:
        await reopened.aclose()


async def test_a_shard_given_a_graph_keeps_its_points_and_stops_sealing(
    tmp_path: Path, corpus: tuple[list[IndexPoint], list[str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    points, _ = corpus
    monkeypatch.setattr(edge_module, "SEAL_EVERY", SEAL)
    index = await fill(tmp_path, points[:40], 8)
    await index.optimize()
    after_optimize = segments(tmp_path)
    for i in range(40, len(points), 8):
        await index.upsert(points[i : i + 8])
    await index.aclose()
    saved = json.loads((tmp_path / "edge_config.json").read_text())
    assert saved["hnsw_config"]["m"] > 0  # the graph is the shard's from now on
    assert segments(tmp_path) <= after_optimize + 1  # later points went to one open segment
    reopened = await EdgeIndex.open(tmp_path, dims=384)
    try:
        assert await reopened.count_points() == len(points)
    finally:
        await reopened.aclose()


async def test_a_shard_made_before_sealing_opens_and_grows_as_it_did(
    tmp_path: Path,
    corpus: tuple[list[IndexPoint], list[str]],
    embedder: OnnxEmbedder,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    points, queries = corpus
    (tmp_path / "old").mkdir()
    old = qe.EdgeShard.create(
        str(tmp_path / "old"),
        qe.EdgeConfig(
            vectors={"dense": qe.EdgeVectorParams(384, qe.Distance.Cosine, on_disk=True)},
            sparse_vectors={"words": qe.EdgeSparseVectorParams(modifier=qe.Modifier.Idf)},
            on_disk_payload=True,
        ),
    )
    old.close()
    monkeypatch.setattr(edge_module, "SEAL_EVERY", SEAL)
    index = await fill(tmp_path / "old", points, 8)
    new = await fill(tmp_path / "new", points, 8)
    try:
        assert segments(tmp_path / "old") == 1  # a seal there would build an HNSW graph each time
        assert segments(tmp_path / "new") > 1
        assert await index.count_points() == len(points)
        # It searches as a shard with today's settings does: same candidates, same scores.
        assert_same(await results(index, embedder, queries), await results(new, embedder, queries))
    finally:
        await index.aclose()
        await new.aclose()


async def test_a_sealing_shard_made_before_int8_copies_seals_as_it_did(
    tmp_path: Path,
    corpus: tuple[list[IndexPoint], list[str]],
    embedder: OnnxEmbedder,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Giving an old shard the int8 copies would rewrite all its sealed segments at its next
    # seal (1M points: 79 s, 2.7 GB): it keeps the settings it was made with.
    points, queries = corpus
    monkeypatch.setattr(edge_module, "SEAL_EVERY", SEAL)
    made_before_int8_copies(tmp_path / "old")
    index = await fill(tmp_path / "old", points[: len(points) // 2], 8)
    await index.aclose()
    index = await fill(tmp_path / "old", points[len(points) // 2 :], 8)
    new = await fill(tmp_path / "new", points, 8)
    try:
        assert segments(tmp_path / "old") > 2
        assert quantized(tmp_path / "old") == 0
        assert quantized(tmp_path / "new") > 2
        assert await index.count_points() == len(points)
        assert_same(await results(index, embedder, queries), await results(new, embedder, queries))
    finally:
        await index.aclose()
        await new.aclose()


@pytest.fixture
def sealing_small(
    corpus: tuple[list[IndexPoint], list[str]], monkeypatch: pytest.MonkeyPatch
) -> tuple[list[IndexPoint], list[str]]:
    """The corpus, with shards sealing every SEAL points."""
    monkeypatch.setattr(edge_module, "SEAL_EVERY", SEAL)
    return corpus


async def test_optimize_gives_a_shard_made_before_int8_copies_its_copies(
    tmp_path: Path,
    sealing_small: tuple[list[IndexPoint], list[str]],
    embedder: OnnxEmbedder,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # `memtrails optimize` rewrites the segments anyway: an older folder's way to the int8
    # scan (a quarter of the fp32 one's time at 100k), kept across reopens.
    points, queries = sealing_small
    # The graph is built for segments past 10 MB of vectors (~6,800 points), as a real
    # folder's sealed ones are; these are a few KB.
    monkeypatch.setattr(edge_settings, "GRAPH_FROM_KB", 1)
    made_before_int8_copies(tmp_path / "old")
    index = await fill(tmp_path / "old", points, 8)
    before = await results(index, embedder, queries)
    assert quantized(tmp_path / "old") == 0
    try:
        await index.optimize()
        assert quantized(tmp_path / "old") > 0
        assert_same(await results(index, embedder, queries), before)
    finally:
        await index.aclose()
    assert edge_module.quantized(tmp_path / "old")
    reopened = await EdgeIndex.open(tmp_path / "old", dims=384)
    try:
        assert await reopened.count_points() == len(points)
        assert_same(await results(reopened, embedder, queries), before)
    finally:
        await reopened.aclose()


async def test_small_imports_add_up_to_a_seal(
    tmp_path: Path, corpus: tuple[list[IndexPoint], list[str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    points, _ = corpus
    monkeypatch.setattr(edge_module, "SEAL_EVERY", SEAL)
    # Each process writes fewer points than a seal takes: the count carries over.
    for start in range(0, 5 * (SEAL // 2), SEAL // 2):
        index = await fill(tmp_path, points[start : start + SEAL // 2], SEAL // 2)
        await index.aclose()
    assert segments(tmp_path) >= 3
    reopened = await EdgeIndex.open(tmp_path, dims=384)
    try:
        assert await reopened.count_points() == 5 * (SEAL // 2)
    finally:
        await reopened.aclose()


async def test_points_given_a_payload_are_sealed_as_upserted_ones_are(
    tmp_path: Path, sealing_small: tuple[list[IndexPoint], list[str]], embedder: OnnxEmbedder
) -> None:
    # `reindex --payloads` gives every point of an older folder a field: a sealed segment's
    # point so changed is copied into the open segment, which must not end up holding them all.
    points, queries = sealing_small
    index = await fill(tmp_path, points, SEAL)
    try:
        before, sealed = await results(index, embedder, queries), quantized(tmp_path)
        for i in range(0, len(points), SEAL // 2):
            ids = [p.id for p in points[i : i + SEAL // 2]]
            await index.set_payload(ids, {"scripts": ["latin"]})
        await index.flush()
        assert quantized(tmp_path) >= sealed + len(points) // SEAL - 1
        # The same passages, by meaning in the same order; the keyword scores move a little
        # (the IDF counts the originals left in the older segments until they are vacuumed).
        after = await results(index, embedder, queries)
        for (ids, scores, words), (ids0, scores0, words0) in zip(after, before, strict=True):
            assert ids == ids0 and scores == pytest.approx(scores0, rel=1e-5)
            assert words.keys() == words0.keys()
            assert [words[k] for k in words0] == pytest.approx(list(words0.values()), rel=0.05)
    finally:
        await index.aclose()


async def test_each_seal_and_each_flush_hand_the_freed_heap_back(
    tmp_path: Path, corpus: tuple[list[IndexPoint], list[str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    points, _ = corpus
    monkeypatch.setattr(edge_module, "SEAL_EVERY", SEAL)
    released: list[int] = []
    real_release = edge_module.release_freed_heap

    def release() -> None:
        released.append(len(released))
        real_release()

    monkeypatch.setattr(edge_module, "release_freed_heap", release)
    index = await fill(tmp_path, points[: 4 * SEAL], SEAL)  # 4 seals, then a flush
    try:
        assert len(released) == 5
        await index.upsert(points[4 * SEAL : 4 * SEAL + 2])  # no seal: nothing released
        assert len(released) == 5
        await index.flush()
        assert len(released) == 6
        assert await index.count_points() == 4 * SEAL + 2
    finally:
        await index.aclose()


async def test_an_author_index_of_another_kind_is_replaced_by_a_text_index_on_open(
    tmp_path: Path,
    corpus: tuple[list[IndexPoint], list[str]],
    embedder: OnnxEmbedder,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A folder made before: `author` had a keyword index, which its word filter cannot use.
    points, queries = corpus
    monkeypatch.setattr(edge_module, "SEAL_EVERY", SEAL)
    index = await fill(tmp_path / "old", points, 8)
    shard = index._shard
    shard.update(qe.UpdateOperation.delete_field_index("author"))
    shard.update(qe.UpdateOperation.create_field_index("author", qe.KeywordIndexParams()))
    assert str(shard.info().payload_schema["author"].data_type).endswith("Keyword")
    unindexed = await fill(tmp_path / "plain", points, len(points))
    unindexed._shard.update(qe.UpdateOperation.delete_field_index("author"))
    try:
        expected = await results(unindexed, embedder, queries)
    finally:
        await index.aclose()
        await unindexed.aclose()
    reopened = await EdgeIndex.open(tmp_path / "old", dims=384)
    try:
        schema = reopened._shard.info().payload_schema
        assert str(schema["author"].data_type).endswith("Text")
        assert schema["author"].points == len(points)
        # The same passages for the author filters as a scan of every payload gives.
        assert_same(await results(reopened, embedder, queries), expected)
    finally:
        await reopened.aclose()
