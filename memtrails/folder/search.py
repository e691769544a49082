"""Search a folder: dense and keyword candidates fused by score, one result per record."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

from ..embedding._base import Embedder
from ..items import embed_text
from ..records import At, AtLike, MemoryRecord
from ..words import keyword_vector
from .index._base import Hit, IndexBackend, SearchFilter, SparseVector
from .log import RecordLog
from .ranking import (
    CONFIDENT_COSINE,
    Ranked,
    confidence,
    date_window,
    diversify,
    keyword_share,
    rank_records,
)
from .table import Table

__all__ = ["SNIPPET_CHARS", "SearchHit", "search", "search_hit"]

SNIPPET_CHARS = 300


@dataclass(frozen=True, slots=True)
class SearchHit:
    """One record found by :meth:`Memory.search`, best passage first.

    ``score`` is the fused score the results are ordered by (0..2, plus 0.2 inside a date
    window the query names); ``dense`` is the record's best raw cosine with the query and
    ``keyword`` its best raw keyword score (``None`` when that side did not find it);
    ``confidence`` is the search's (the same on every hit, see
    :func:`memtrails.folder.ranking.confidence`): on the cosine scale, the best raw cosine of
    any candidate or the keyword evidence mapped onto that scale, whichever is higher;
    ``confident`` is ``confidence >= CONFIDENT_COSINE`` (0.35): when False, nothing came close
    in meaning and no passage matched the query's words well, and the question probably has
    no answer here.
    """

    score: float
    id: str
    uid: str
    title: str | None
    kind: str
    author: str | None
    at: At | None
    source: str
    snippet: str
    dense: float | None = None
    keyword: float | None = None
    confident: bool = True
    confidence: float | None = None

    def to_json(self) -> dict[str, Any]:
        """Return the hit as the JSON object ``memtrails search --json`` prints."""
        return {
            "score": round(self.score, 6),
            "dense": None if self.dense is None else round(self.dense, 6),
            "keyword": None if self.keyword is None else round(self.keyword, 6),
            "confident": self.confident,
            "confidence": None if self.confidence is None else round(self.confidence, 6),
            "id": self.id,
            "uid": self.uid,
            "title": self.title,
            "kind": self.kind,
            "author": self.author,
            "at": self.at.iso() if self.at else None,
            "source": self.source,
            "snippet": self.snippet,
        }


def search_hit(
    hit: Hit,
    record: MemoryRecord,
    ranked: Ranked | None = None,
    confident: bool = True,
    sure: float | None = None,
) -> SearchHit:
    """Return the result for a record found by its best passage ``hit``."""
    text = embed_text(record)
    start = int(hit.payload.get("start", 0))
    end = int(hit.payload.get("end", len(text)))
    snippet = " ".join(text[start:end].split())[:SNIPPET_CHARS]
    return SearchHit(
        score=ranked.score if ranked else hit.score,
        id=record.id,
        uid=hit.uid,
        title=record.title,
        kind=record.kind,
        author=record.author,
        at=record.at,
        source=record.source,
        snippet=snippet,
        dense=ranked.dense if ranked else None,
        keyword=ranked.keyword if ranked else None,
        confident=confident,
        confidence=sure,
    )


async def search(
    index: IndexBackend,
    table: Table,
    log: RecordLog,
    embedder: Embedder,
    query: str,
    k: int,
    *,
    kind: str | None = None,
    author: str | None = None,
    source: str | None = None,
    since: AtLike | None = None,
    until: AtLike | None = None,
    min_confidence: float | None = None,
) -> list[SearchHit]:
    """Return the ``k`` live records that best match ``query``; see :meth:`Memory.search`."""
    if k < 1:
        raise ValueError("`k` must be at least 1")
    dense = await embedder.embed_query(query)
    terms = keyword_vector(query)
    where = SearchFilter(
        kind=kind,
        author=author,
        source=source,
        since_ms=At.of(since).ms if since is not None else None,
        until_ms=At.of(until).ms if until is not None else None,
    )
    sparse = SparseVector(list(terms), list(terms.values()))
    # Each side offers a few times k passages: a record may own several.
    by_meaning, by_words = await index.candidates(dense, sparse, max(4 * k, 40), where)
    # How close the folder comes to the query at all: in meaning (a few shared words are
    # common to unrelated text, a close cosine is not), or by matching most of its words,
    # rare ones, well (an exact name or number the model does not understand).
    closest = max((h.score for h in by_meaning), default=-1.0)
    best_words = max((h.score for h in by_words), default=0.0)
    share = await asyncio.to_thread(
        lambda: keyword_share(best_words, sum(terms.values()), len(table))
    )
    sure = confidence(closest, share)
    if min_confidence is not None and sure < min_confidence:
        return []
    confident = sure >= CONFIDENT_COSINE
    ranked = diversify(rank_records(by_meaning, by_words, window=date_window(query), live=table), k)

    def read() -> list[SearchHit]:
        out = []
        for r in ranked:
            row = table.get(r.uid)
            if row is not None:
                record = MemoryRecord.from_json(log.read_line(row[1]))
                out.append(search_hit(r.hit, record, r, confident, sure))
        return out

    return await asyncio.to_thread(read)
