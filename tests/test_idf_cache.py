"""The IDF of query words is asked of the index once per word while the index stays put."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path
from typing import Any, cast

import pytest
from helpers import notes

from memtrails import Memory
from memtrails.folder.idf import IdfCache
from memtrails.folder.index._base import IndexBackend
from memtrails.testing import HashingEmbedder


class _Index:
    """Answers term_idf from a table, noting what it was asked."""

    def __init__(self, idf: dict[int, float]) -> None:
        self.idf = idf
        self.asked: list[list[int]] = []

    async def term_idf(self, terms: Sequence[int]) -> dict[int, float]:
        self.asked.append(list(terms))
        return {t: self.idf[t] for t in terms if t in self.idf}


async def test_a_word_is_asked_once_until_the_index_changes() -> None:
    index = _Index({1: 2.0, 2: 0.5})
    cache, version = IdfCache(), [0]
    backend = cast(IndexBackend, index)
    assert await cache.get(backend, [1, 2, 3], lambda: version[0]) == {1: 2.0, 2: 0.5}
    # Known words, and a word no point holds, are not asked again.
    assert await cache.get(backend, [2, 3, 1], lambda: version[0]) == {1: 2.0, 2: 0.5}
    assert await cache.get(backend, [1, 4], lambda: version[0]) == {1: 2.0}
    assert index.asked == [[1, 2, 3], [4]]
    # The index changed: every word is asked again, and answers as it now does.
    version[0] += 1
    index.idf[3] = 7.0
    assert await cache.get(backend, [1, 3], lambda: version[0]) == {1: 2.0, 3: 7.0}
    assert index.asked[-1] == [1, 3]


async def test_an_answer_given_while_the_index_moved_is_not_kept() -> None:
    index = _Index({1: 2.0})
    cache, version = IdfCache(), [0]

    class Moving(_Index):
        async def term_idf(self, terms: Sequence[int]) -> dict[int, float]:
            version[0] += 1  # a write lands while the index answers
            return await index.term_idf(terms)

    moving = cast(IndexBackend, Moving({}))
    assert await cache.get(moving, [1], lambda: version[0]) == {1: 2.0}
    assert await cache.get(cast(IndexBackend, index), [1], lambda: version[0]) == {1: 2.0}
    assert index.asked == [[1], [1]]


async def test_a_search_after_an_import_asks_the_index_again(tmp_path: Path) -> None:
    async with Memory.open(tmp_path / "m", embedder=HashingEmbedder()) as memory:
        await memory.ingest(notes({"a": "The backups run at three in the morning."}))
        index: Any = memory._folder.index  # the search's index: count its IDF calls
        asked: list[list[int]] = []
        term_idf = index.term_idf

        async def counted(terms: Sequence[int]) -> dict[int, float]:
            asked.append(list(terms))
            return cast(dict[int, float], await term_idf(terms))

        index.term_idf = counted
        await memory.search("when do the backups run?")
        await memory.search("when do the backups run?")
        assert len(asked) == 1
        await memory.ingest(notes({"b": "Snapshots are kept for thirty days."}))
        await memory.search("when do the backups run?")
        assert len(asked) == 2 and set(asked[1]) == set(asked[0])


async def test_the_cache_starts_over_past_its_limit() -> None:
    index = _Index({1: 1.0, 2: 2.0, 3: 3.0})
    cache = IdfCache(limit=2)
    backend = cast(IndexBackend, index)
    await cache.get(backend, [1, 2], lambda: 0)
    await cache.get(backend, [3], lambda: 0)  # past the limit: only 3 is kept
    await cache.get(backend, [1, 3], lambda: 0)
    assert index.asked == [[1, 2], [3], [1]]


async def test_a_model_failing_during_a_search_fails_it_with_its_own_error(
    tmp_path: Path,
) -> None:
    """The words' IDF is asked while the model embeds the query: a model error still reaches
    the caller as itself, not wrapped, and nothing is left running."""
    from memtrails import EmbeddingError

    class Failing(HashingEmbedder):
        async def embed_query(self, text: str) -> Any:
            raise EmbeddingError("the model is gone")

    async with Memory.open(tmp_path / "m", embedder=Failing()) as memory:
        await memory.ingest(notes({"a": "The backups run at three in the morning."}))
        before = len(asyncio.all_tasks())
        with pytest.raises(EmbeddingError, match="the model is gone"):
            await memory.search("when do the backups run?")
        assert len(asyncio.all_tasks()) == before
