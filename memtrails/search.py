"""Search results: one per record, with the best passage as the snippet."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .pipeline.embed import embed_text
from .records import At, MemoryRecord
from .sinks.index._base import Hit

__all__ = ["SNIPPET_CHARS", "SearchHit", "search_hit"]

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
