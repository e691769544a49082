"""Search a folder: fused dense and keyword candidates, one result per record."""

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
from .table import Table

__all__ = ["SNIPPET_CHARS", "SearchHit", "search", "search_hit"]

SNIPPET_CHARS = 300


@dataclass(frozen=True, slots=True)
class SearchHit:
    """One record found by :meth:`Memory.search`, best passage first."""

    score: float
    id: str
    uid: str
    title: str | None
    kind: str
    author: str | None
    at: At | None
    source: str
    snippet: str

    def to_json(self) -> dict[str, Any]:
        return {
            "score": round(self.score, 6),
            "id": self.id,
            "uid": self.uid,
            "title": self.title,
            "kind": self.kind,
            "author": self.author,
            "at": self.at.iso() if self.at else None,
            "source": self.source,
            "snippet": self.snippet,
        }


def search_hit(hit: Hit, record: MemoryRecord) -> SearchHit:
    """Return the result for a record found by its best passage ``hit``."""
    text = embed_text(record)
    start = int(hit.payload.get("start", 0))
    end = int(hit.payload.get("end", len(text)))
    snippet = " ".join(text[start:end].split())[:SNIPPET_CHARS]
    return SearchHit(
        score=hit.score,
        id=record.id,
        uid=hit.uid,
        title=record.title,
        kind=record.kind,
        author=record.author,
        at=record.at,
        source=record.source,
        snippet=snippet,
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
    hits = await index.search(dense, sparse, limit=k * 4, where=where)
    best: dict[str, Hit] = {}
    for hit in hits:
        if hit.uid not in best and hit.uid in table:
            best[hit.uid] = hit
        if len(best) >= k:
            break

    def read() -> list[SearchHit]:
        out = []
        for hit in best.values():
            row = table.get(hit.uid)
            if row is not None:
                out.append(search_hit(hit, MemoryRecord.from_json(log.read_line(row[1]))))
        return out

    return await asyncio.to_thread(read)
