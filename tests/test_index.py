"""One behaviour suite for the index backends: Qdrant Edge, qdrant-client's local mode, in memory."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
from qdrant_client import AsyncQdrantClient

from memtrails._exceptions import IndexBackendError
from memtrails.embedding import OnnxEmbedder, Vector
from memtrails.folder.index import (
    EdgeIndex,
    Hit,
    IndexBackend,
    IndexPoint,
    SearchFilter,
    ServerIndex,
    SparseVector,
)
from memtrails.folder.points import points_for
from memtrails.folder.ranking import Ranked, rank_records
from memtrails.items import Staged
from memtrails.keys import point_id
from memtrails.records import At, MemoryRecord
from memtrails.testing import MemoryIndex
from memtrails.words import keyword_vector

DAY_MS = 86_400_000
T0 = 1_700_000_000_000  # 2023-11-14, epoch ms
LONG_UID = "long-record"


def sparse(text: str) -> SparseVector:
    kv = keyword_vector(text)
    return SparseVector(list(kv), list(kv.values()))


@dataclass
class Corpus:
    embedder: OnnxEmbedder
    points: list[IndexPoint]
    texts: dict[str, str]
    long_passages: int

    async def query(self, text: str) -> tuple[Vector, SparseVector]:
        return await self.embedder.embed_query(text), sparse(text)


@pytest.fixture(scope="module")
def corpus(corpora: Path, embedder: OnnxEmbedder) -> Iterator[Corpus]:
    lines = (corpora / "jsonl" / "fastchat-mt_bench-question.jsonl").read_text().splitlines()
    rows = [json.loads(line) for line in lines[:50]]
    texts = {f"mt{row['question_id']}": row["turns"][0] for row in rows}
    gsm = (corpora / "jsonl" / "gsm8k-test.jsonl").read_text().splitlines()[:12]
    long_text = "\n\n".join(json.loads(line)["answer"] for line in gsm)

    async def build() -> tuple[list[IndexPoint], int]:
        uids = [*texts, LONG_UID]
        all_texts = [*texts.values(), long_text]
        staged = []
        for i, (uid, text, passages) in enumerate(
            zip(uids, all_texts, await embedder.embed(all_texts), strict=True)
        ):
            record = MemoryRecord(
                id=uid,
                text=text,
                kind="prompt" if i < len(rows) else "answer",
                author=rows[i]["category"] if i < len(rows) else "maths",
                at=At(T0 + i * DAY_MS),
                source="mt-bench" if i < len(rows) else "gsm8k",
            )
            staged.append(Staged(record, uid=uid, fp="", passages=passages))
        # The points the folder itself would write for these records.
        return points_for(staged), len(staged[-1].passages)

    points, long_passages = asyncio.run(build())
    assert long_passages > 1, "the long record must span several windows"
    yield Corpus(embedder, points, {**texts, LONG_UID: long_text}, long_passages)


Opener = Callable[[], Awaitable[IndexBackend]]


@pytest.fixture(params=["edge", "server-local", "memory"])
def opener(request: pytest.FixtureRequest, tmp_path: Path) -> Opener:
    """Return a function that opens (or reopens) the backend under test in tmp_path."""
    if request.param == "edge":

        async def open_edge() -> IndexBackend:
            return await EdgeIndex.open(tmp_path / "index", dims=384)

        return open_edge
    if request.param == "memory":

        async def open_memory() -> IndexBackend:
            return MemoryIndex()

        return open_memory

    async def open_local() -> IndexBackend:
        client = AsyncQdrantClient(path=str(tmp_path / "qdrant"))
        return await ServerIndex.open(client, collection="memtrails", dims=384, own_client=True)

    return open_local


@pytest.fixture
async def index(opener: Opener, corpus: Corpus) -> AsyncIterator[IndexBackend]:
    idx = await opener()
    await idx.upsert(corpus.points)
    await idx.flush()
    yield idx
    await idx.aclose()


async def test_counts(index: IndexBackend, corpus: Corpus) -> None:
    assert await index.count_records() == 51
    assert await index.count_points() == 50 + corpus.long_passages


async def test_term_idf_is_the_keyword_sides_own_on_every_backend(
    index: IndexBackend, corpus: Corpus
) -> None:
    # What a search weighs the question's words by: the IDF the keyword side applies,
    # ln(1 + (N - n + 0.5) / (n + 0.5)) over the N points, n of them holding the word.
    held: dict[int, int] = {}
    for point in corpus.points:
        for term in set(point.sparse.indices):
            held[term] = held.get(term, 0) + 1
    n_points = len(corpus.points)
    common = max(held, key=held.__getitem__)  # in nearly every point
    once = sorted(t for t, n in held.items() if n == 1)[:40]  # many share their best point
    never = 7  # no word hashes to this id in the corpus
    assert never not in held
    terms = [common, *once, never]
    idf = await index.term_idf(terms)
    assert set(idf) == {common, *once}
    for term in (common, *once):
        n = held[term]
        assert idf[term] == pytest.approx(np.log(1 + (n_points - n + 0.5) / (n + 0.5)), rel=1e-4)


def _uids(hits: Sequence[Hit]) -> set[str]:
    return {h.uid for h in hits}


async def fused(
    index: IndexBackend, dense: Vector, words: SparseVector, limit: int, where: SearchFilter
) -> list[Ranked]:
    """The records a search would rank from this backend's candidates, best first."""
    by_meaning, by_words = await index.candidates(dense, words, limit, where)
    return rank_records(by_meaning, by_words)


async def test_keyword_side_finds_a_rare_word(index: IndexBackend, corpus: Corpus) -> None:
    dense, words = await corpus.query("suresh")
    # The model alone ranks another prompt first for this name...
    dense_only, none = await index.candidates(dense, SparseVector([], []), 3, SearchFilter())
    assert dense_only[0].uid != "mt109" and none == []
    # ...the keyword side puts the one prompt that contains it on top.
    ranked = await fused(index, dense, words, 3, SearchFilter())
    assert ranked[0].uid == "mt109"
    assert "Suresh" in corpus.texts[ranked[0].uid]


async def test_dense_side_finds_a_paraphrase(index: IndexBackend, corpus: Corpus) -> None:
    query = "recursive code that returns the n-th element of the Fibonacci sequence"
    dense, words = await corpus.query(query)
    ranked = await fused(index, dense, words, 5, SearchFilter())
    assert ranked[0].uid == "mt122"
    assert "Fibonacci" in corpus.texts["mt122"]
    by_meaning, _ = await index.candidates(dense, words, 5, SearchFilter())
    assert by_meaning[0].uid == "mt122" and by_meaning[0].payload["passage"] == 0
    assert [r.score for r in ranked] == sorted((r.score for r in ranked), reverse=True)


async def test_candidates_keep_each_sides_raw_scores(index: IndexBackend, corpus: Corpus) -> None:
    dense, words = await corpus.query("suresh")
    by_meaning, by_words = await index.candidates(dense, words, 5, SearchFilter())
    assert len(by_meaning) == 5
    # Raw cosines, best first, not fused ranks.
    assert [h.score for h in by_meaning] == sorted((h.score for h in by_meaning), reverse=True)
    assert all(-1.0 <= h.score <= 1.0 for h in by_meaning)
    # The one prompt holding the name is the only keyword match.
    assert [h.uid for h in by_words] == ["mt109"] and by_words[0].score > 0
    # Each candidate carries the dense vector it was stored with (search spreads copies).
    stored = {p.payload["uid"]: p.dense for p in corpus.points if p.payload["passage"] == 0}
    for h in (*by_meaning, *by_words):
        if h.payload["passage"] == 0:
            assert h.vector is not None
            assert np.allclose(h.vector, stored[h.uid], atol=1e-5)
    only_dense = await index.candidates(dense, SparseVector([], []), 5, SearchFilter())
    assert only_dense[1] == [] and [h.uid for h in only_dense[0]] == [h.uid for h in by_meaning]
    # The words side alone (asked while the model still embeds the query): the same hits.
    only_words = await index.candidates(None, words, 5, SearchFilter())
    assert only_words[0] == [] and [(h.uid, h.score) for h in only_words[1]] == [
        (h.uid, h.score) for h in by_words
    ]
    assert await index.candidates(None, SparseVector([], []), 5, SearchFilter()) == ([], [])
    scoped = await index.candidates(dense, words, 50, SearchFilter(source="gsm8k"))
    assert {h.uid for h in scoped[0]} == {LONG_UID} and scoped[1] == []


async def test_filters(index: IndexBackend, corpus: Corpus) -> None:
    dense, words = await corpus.query("write a program in Python")
    by: dict[str, dict[str, set[str]]] = {key: {} for key in ("author", "kind", "source")}
    for point in corpus.points:
        for key in by:
            by[key].setdefault(point.payload[key], set()).add(point.payload["uid"])

    async def found(where: SearchFilter, limit: int = 60) -> tuple[list[Hit], list[Hit]]:
        # Every passage that meets the filter is a dense candidate (the limit is above them).
        return await index.candidates(dense, words, limit, where)

    coding, coding_words = await found(SearchFilter(author="coding"))
    assert _uids(coding) == by["author"]["coding"] and len(by["author"]["coding"]) == 10
    assert _uids(coding_words) <= by["author"]["coding"]

    answers, _ = await found(SearchFilter(kind="answer"))
    assert _uids(answers) == {LONG_UID} and len(answers) == corpus.long_passages

    gsm, gsm_words = await found(SearchFilter(source="gsm8k"))
    assert _uids(gsm) == {LONG_UID} and _uids(gsm_words) <= {LONG_UID}

    window = SearchFilter(since_ms=T0 + 10 * DAY_MS, until_ms=T0 + 12 * DAY_MS)
    dated, _ = await found(window)
    assert sorted(h.payload["at"] for h in dated) == [T0 + d * DAY_MS for d in (10, 11, 12)]

    picked, _ = await found(SearchFilter(uids=["mt81", "mt130"]))
    assert _uids(picked) == {"mt81", "mt130"}
    assert await found(SearchFilter(uids=[])) == ([], [])

    both, _ = await found(SearchFilter(author="coding", since_ms=T0))
    assert _uids(both) == _uids(coding)
    assert await found(SearchFilter(author="nobody"), 5) == ([], [])


@asynccontextmanager
async def _holding(opener: Opener, points: list[IndexPoint]) -> AsyncIterator[IndexBackend]:
    """A backend opened with ``points`` written and flushed, closed afterwards."""
    index = await opener()
    try:
        await index.upsert(points)
        await index.flush()
        yield index
    finally:
        await index.aclose()


async def test_an_author_matches_by_its_words_on_every_backend(
    opener: Opener, corpus: Corpus
) -> None:
    # The same question of every backend: an address, a name part in any case, or the whole.
    authors = {"mt81": "Ann Lee <ann@x.org>", "mt82": "Bob Stone <bob@y.com>", "mt83": None}
    points = [
        IndexPoint(p.id, p.dense, p.sparse, {**p.payload, "author": authors[p.payload["uid"]]})
        for p in corpus.points
        if p.payload["uid"] in authors
    ]
    async with _holding(opener, points) as index:
        dense, words = await corpus.query("a trip to Hawaii")
        for author, expected in [
            ("ann@x.org", {"mt81"}),
            ("Ann", {"mt81"}),
            ("lee", {"mt81"}),
            ("LEE ann", {"mt81"}),
            ("Ann Lee <ann@x.org>", {"mt81"}),
            ("bob", {"mt82"}),
            ("Le", set()),  # whole words, not parts of one
            ("Ann Stone", set()),  # every word, not any
            ("nobody", set()),
            ("<>", set()),  # no words: nothing, not everything
        ]:
            hits, _ = await index.candidates(dense, words, 10, SearchFilter(author=author))
            assert _uids(hits) == expected, author


async def test_a_search_asks_for_passages_outside_the_query_scripts_on_every_backend(
    opener: Opener, corpus: Corpus
) -> None:
    # The folder writes each passage's scripts: the English prompts Latin, none for a sum
    # ("x+y = 4z ...": too few letters of prose to tell). A Korean, a bilingual, a Russian
    # and a too-short passage are set here as the folder would set them.
    written = {tuple(p.payload.get("scripts", ())) for p in corpus.points}
    assert written == {("latin",), ()}
    scripts = {"mt81": ["hangul"], "mt82": ["hangul", "latin"], "mt83": ["cyrillic"], "mt84": None}
    points = [
        IndexPoint(
            p.id,
            p.dense,
            p.sparse,
            {k: v for k, v in p.payload.items() if k != "scripts"}
            | ({"scripts": s} if (s := scripts.get(p.payload["uid"], ["latin"])) else {}),
        )
        for p in corpus.points
        if p.payload["uid"] in (*scripts, "mt85")
    ]
    async with _holding(opener, points) as index:
        dense, _ = await corpus.query("a trip to Hawaii")
        for outside, expected in [
            ({"latin"}, {"mt81", "mt82", "mt83"}),  # in two scripts: in another one too
            ({"hangul"}, {"mt82", "mt83", "mt85"}),
            ({"latin", "cyrillic"}, {"mt81", "mt82"}),
            ({"hangul", "latin"}, {"mt83"}),
            ({"greek"}, {"mt81", "mt82", "mt83", "mt85"}),  # too short to tell: never
        ]:
            where = SearchFilter(outside=frozenset(outside))
            hits, _ = await index.candidates(dense, SparseVector([], []), 10, where)
            assert _uids(hits) == expected, outside
        kept, _ = await index.candidates(
            dense,
            SparseVector([], []),
            10,
            SearchFilter(outside=frozenset({"latin"}), uids=["mt81"]),
        )
        assert _uids(kept) == {"mt81"}


async def test_points_without_a_field_are_paged_and_given_it_on_every_backend(
    opener: Opener, corpus: Corpus
) -> None:
    # As a folder indexed before points kept their scripts: none of them has the field.
    older = [
        IndexPoint(p.id, p.dense, p.sparse, {k: v for k, v in p.payload.items() if k != "scripts"})
        for p in corpus.points
    ]
    async with _holding(opener, older) as index:
        seen: list[str] = []
        after: str | None = None
        while True:
            page, after = await index.points_missing("scripts", after, 7)
            assert len(page) <= 7
            assert all({"uid", "start", "end"} <= set(payload) for _, payload in page)
            seen += [point_id for point_id, _ in page]
            if after is None:
                break
        assert sorted(seen) == sorted(p.id for p in older)  # each once
        korean = [p.id for p in older if p.payload["uid"] in ("mt81", "mt82")]
        await index.set_payload(korean, {"scripts": ["hangul"]})
        left, _ = await index.points_missing("scripts", None, 1000)
        assert {i for i, _ in left} == {p.id for p in older} - set(korean)
        dense, _ = await corpus.query("a trip to Hawaii")
        where = SearchFilter(outside=frozenset({"latin"}))
        hits, _ = await index.candidates(dense, SparseVector([], []), 10, where)
        assert _uids(hits) == {"mt81", "mt82"}
        # The other keys are kept.
        kept, _ = await index.candidates(
            dense, SparseVector([], []), 10, SearchFilter(uids=["mt81"])
        )
        assert kept[0].payload["author"] == next(
            p.payload["author"] for p in older if p.payload["uid"] == "mt81"
        )


async def test_delete_uids_removes_every_passage(index: IndexBackend, corpus: Corpus) -> None:
    await index.delete_uids([LONG_UID, "mt81"])
    await index.delete_uids([])
    assert await index.count_records() == 49
    assert await index.count_points() == 49
    dense, words = await corpus.query(corpus.texts[LONG_UID][:200])
    by_meaning, by_words = await index.candidates(dense, words, 60, SearchFilter())
    assert len(by_meaning) == 49
    assert not _uids([*by_meaning, *by_words]) & {LONG_UID, "mt81"}


async def test_clear_removes_everything(index: IndexBackend, corpus: Corpus) -> None:
    await index.clear()
    assert await index.count_points() == 0
    await index.upsert(corpus.points[:5])
    assert await index.count_records() == 5
    dense, words = await corpus.query(corpus.texts["mt81"])
    assert (await fused(index, dense, words, 1, SearchFilter(author="writing")))[0].uid == "mt81"


async def test_upsert_same_ids_twice_does_not_duplicate(
    index: IndexBackend, corpus: Corpus
) -> None:
    await index.upsert(corpus.points[:20])
    first = corpus.points[0]
    moved = IndexPoint(first.id, first.dense, first.sparse, {**first.payload, "at": T0 - DAY_MS})
    await index.upsert([moved])
    assert await index.count_points() == 50 + corpus.long_passages
    hits, _ = await index.candidates(first.dense, first.sparse, 5, SearchFilter(uids=["mt81"]))
    assert [h.payload["at"] for h in hits] == [T0 - DAY_MS]  # replaced, not added


async def test_reopen_keeps_points(opener: Opener, corpus: Corpus) -> None:
    idx = await opener()
    if isinstance(idx, MemoryIndex):
        pytest.skip("the in-memory index keeps nothing once closed")
    await idx.upsert(corpus.points)
    await idx.flush()
    await idx.aclose()
    await idx.aclose()  # idempotent
    with pytest.raises(IndexBackendError, match="closed"):
        await idx.count_points()
    idx = await opener()
    try:
        assert await idx.count_points() == 50 + corpus.long_passages
        assert await idx.count_records() == 51
        dense, words = await corpus.query("suresh")
        assert (await fused(idx, dense, words, 1, SearchFilter()))[0].uid == "mt109"
    finally:
        await idx.aclose()


async def test_empty_index_and_limits(opener: Opener, corpus: Corpus) -> None:
    idx = await opener()
    try:
        dense, words = await corpus.query("anything")
        assert await idx.candidates(dense, words, 5, SearchFilter()) == ([], [])
        assert await idx.count_records() == 0
        await idx.upsert([])
        await idx.optimize()
        assert isinstance(idx.describe()["kind"], str)
        await idx.upsert(corpus.points[:3])
        assert await idx.candidates(dense, words, 0, SearchFilter()) == ([], [])
        assert len((await idx.candidates(dense, words, 2, SearchFilter()))[0]) == 2
    finally:
        await idx.aclose()


async def test_point_uids_lists_every_passage_of_every_record(
    index: IndexBackend, corpus: Corpus
) -> None:
    listed = await index.point_uids()
    assert listed is not None and len(listed) == 51
    assert listed[LONG_UID] == set(range(corpus.long_passages))
    assert all(listed[uid] == {0} for uid in corpus.texts if uid != LONG_UID)


async def test_the_owner_mark_is_kept_where_the_backend_can(opener: Opener) -> None:
    idx = await opener()
    try:
        assert await idx.owner() is None
        await idx.set_owner("f" * 32)
        # A server collection records none (several folders may share a server).
        expected = None if isinstance(idx, ServerIndex) else "f" * 32
        assert await idx.owner() == expected
    finally:
        await idx.aclose()


async def test_the_memory_index_scores_as_qdrant_edge_does(tmp_path: Path, corpus: Corpus) -> None:
    """Same candidates, same order, same raw scores: cosine, and keyword weights x Qdrant's IDF."""
    edge = await EdgeIndex.open(tmp_path / "index", dims=384)
    memory = MemoryIndex()
    try:
        for idx in (edge, memory):
            await idx.upsert(corpus.points)
        for text in ("suresh", "write a program in Python", corpus.texts[LONG_UID][:300]):
            dense, words = await corpus.query(text)
            for where in (SearchFilter(), SearchFilter(author="coding")):
                got = await memory.candidates(dense, words, 8, where)
                want = await edge.candidates(dense, words, 8, where)
                for mine, theirs in zip(got, want, strict=True):
                    assert [h.uid for h in mine] == [h.uid for h in theirs]
                    assert [h.score for h in mine] == pytest.approx(
                        [h.score for h in theirs], rel=1e-4, abs=1e-5
                    )
    finally:
        await edge.aclose()
        await memory.aclose()


# ---------------------------------------------------------------- Edge only


@pytest.mark.slow
async def test_edge_second_open_is_a_clear_error(tmp_path: Path) -> None:
    idx = await EdgeIndex.open(tmp_path / "index", dims=8)
    try:
        with pytest.raises(IndexBackendError, match=r"index .*index is already open"):
            await EdgeIndex.open(tmp_path / "index", dims=8)
        code = (
            "import asyncio, sys\n"
            "from pathlib import Path\n"
            "from memtrails._exceptions import IndexBackendError\n"
            "from memtrails.folder.index import EdgeIndex\n"
            "try:\n"
            f"    asyncio.run(EdgeIndex.open(Path({str(tmp_path / 'index')!r}), dims=8))\n"
            "except IndexBackendError as exc:\n"
            "    print(exc)\n"
            "    sys.exit(3)\n"
        )
        done = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, timeout=120
        )
        assert done.returncode == 3, done.stderr
        assert str(tmp_path / "index") in done.stdout
        assert "another process" in done.stdout
    finally:
        await idx.aclose()


async def test_edge_other_dims_is_a_clear_error(tmp_path: Path) -> None:
    idx = await EdgeIndex.open(tmp_path / "index", dims=8)
    await idx.aclose()
    with pytest.raises(IndexBackendError, match="other vectors than 16 dims"):
        await EdgeIndex.open(tmp_path / "index", dims=16)
    idx = await EdgeIndex.open(tmp_path / "index", dims=8)
    assert idx.describe() == {"kind": "qdrant-edge", "path": str(tmp_path / "index")}
    with pytest.raises(IndexBackendError, match="has 4 dims"):
        await idx.upsert(
            [IndexPoint(point_id("x", 0), np.ones(4, np.float32), SparseVector([], []), {})]
        )
    await idx.aclose()


async def test_edge_open_cancelled_releases_the_shard(tmp_path: Path) -> None:
    """A task cancelled while opening leaves no shard (and no WAL lock) behind."""
    task = asyncio.create_task(EdgeIndex.open(tmp_path / "index", dims=8))
    await asyncio.sleep(0)  # let the open start in its thread
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    for _ in range(600):  # the orphaned open finishes in its thread, then is closed
        try:
            idx = await EdgeIndex.open(tmp_path / "index", dims=8)
            break
        except IndexBackendError:
            await asyncio.sleep(0.05)
    else:
        pytest.fail("the shard opened by the cancelled task was never closed")
    await idx.aclose()


@pytest.mark.slow
def test_edge_unflushed_points_survive_a_killed_process(tmp_path: Path) -> None:
    """Points upserted but never flushed come back from Edge's write-ahead log."""
    code = (
        "import asyncio, os, sys\n"
        "import numpy as np\n"
        "from pathlib import Path\n"
        "from memtrails.folder.index import EdgeIndex, IndexPoint, SparseVector\n"
        "async def main():\n"
        f"    idx = await EdgeIndex.open(Path({str(tmp_path / 'index')!r}), dims=8)\n"
        "    rng = np.random.default_rng(1)\n"
        "    pts = [IndexPoint(f'00000000-0000-4000-8000-{i:012d}',\n"
        "        rng.random(8, dtype=np.float32), SparseVector([i], [1.0]),\n"
        "        {'uid': f'u{i}', 'passage': 0}) for i in range(300)]\n"
        "    await idx.upsert(pts)\n"
        "    os._exit(0)  # no flush, no close: as if killed\n"
        "asyncio.run(main())\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr

    async def reopen() -> int:
        idx = await EdgeIndex.open(tmp_path / "index", dims=8)
        try:
            return await idx.count_records()
        finally:
            await idx.aclose()

    assert asyncio.run(reopen()) == 300


# ---------------------------------------------------------------- server only


async def test_server_other_dims_is_a_clear_error(tmp_path: Path) -> None:
    client = AsyncQdrantClient(path=str(tmp_path / "qdrant"))
    try:
        idx = await ServerIndex.open(client, collection="c", dims=8)
        await idx.aclose()
        with pytest.raises(IndexBackendError, match="has 8 dims, expected 'dense' of 16"):
            await ServerIndex.open(client, collection="c", dims=16)
        idx = await ServerIndex.open(client, collection="c", dims=8)
        assert idx.describe()["kind"] == "qdrant-server"
        await idx.aclose()
        # The index did not own the client: it is still usable.
        assert await client.collection_exists("c")
    finally:
        await client.close()


async def test_server_unreachable_is_an_index_error() -> None:
    # Port 9 (discard) on localhost: nothing listens there on these machines.
    with pytest.raises(IndexBackendError, match="open failed"):
        await ServerIndex.open("http://127.0.0.1:9", dims=8)
