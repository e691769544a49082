"""A search's results: one record found, its best passage shown as one line."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

from ..items import attachment_of, embed_text
from ..records import At, MemoryRecord
from .index._base import Hit
from .points import passage_span
from .ranking import Ranked

__all__ = ["SNIPPET_CHARS", "SearchHit", "search_hit", "snippet_of"]

SNIPPET_CHARS = 300


@dataclass(frozen=True, slots=True)
class SearchHit:
    """One record found by :meth:`Memory.search`, best passage first.

    ``score`` is the fused score the results are ordered by (0..2, plus 0.2 inside a date
    window the query names, 0.2 when the query names the author, and for a conversation's
    turns 0.3 x the best neighbour's score, or for a reply the whole score of the turn that
    asks before it, or 0.7 x the score of the turn that question followed up, less 0.2 for a
    turn that ends asking); ``dense`` is
    the record's best raw cosine with the query and ``keyword`` its best raw keyword score
    (``None`` when that side did not find it); ``confidence`` is the search's (the same on
    every hit, see
    :func:`memtrails.folder.confidence.confidence`): half the best raw cosine (on MiniLM's
    scale) and half the share of the query's rare-word weight the best records hold;
    ``confident`` is ``confidence >= CONFIDENT_COSINE`` (0.35): when False, nothing came close
    in meaning and the best records hold few of the query's rarer words, and the question
    probably has no answer here.

    The rest is the record's: ``id`` (as its source named it), ``uid`` (the folder's key, for
    :meth:`Memory.get`), ``title``, ``kind``, ``author``, ``at`` (an :class:`At` or None),
    ``source`` and ``snippet`` (the best passage). Example, with the test embedder:

        >>> import asyncio, tempfile
        >>> from memtrails import Memory
        >>> from memtrails.testing import HashingEmbedder
        >>> notes = [{"id": "n1", "text": "The launch is on Friday."}, {"id": "n2", "text": "Soup."}]
        >>> async def ask(folder, query):
        ...     async with Memory.open(folder, embedder=HashingEmbedder()) as memory:
        ...         await memory.ingest(notes, name="notes")
        ...         return await memory.search(query, k=1)
        >>> with tempfile.TemporaryDirectory() as folder:
        ...     [hit] = asyncio.run(ask(folder, "when is the launch?"))
        >>> hit.id, hit.kind, hit.source, hit.snippet
        ('n1', 'note', 'notes', 'The launch is on Friday.')
        >>> hit.confident, hit.to_json()["id"]
        (True, 'n1')
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
    #: the attached document the best passage lies in (a mail found by its PDF), or None
    attachment: str | None = None

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
        } | ({"attachment": self.attachment} if self.attachment else {})


def snippet_of(passage: str, title: str | None, limit: int) -> str:
    """Return a passage as one line of at most ``limit`` characters, for a result.

    The title, which results show beside it, is not repeated at its start (the model sees
    title and text together, so a first passage begins with it), and a cut falls between
    words, marked with an ellipsis.
    """
    flat = " ".join(passage.split())
    if title:
        head = " ".join(title.split())
        # Twice: the title the model is given, then the text's own heading (a note's "# T").
        for _ in range(2):
            bare = flat.lstrip("#= ")  # a Markdown heading's marks before the title
            if bare.startswith(head) and len(bare) > len(head):
                flat = bare[len(head) :].lstrip(" :-#=")
    if len(flat) <= limit:
        return flat
    cut = flat[: limit - 1]
    space = cut.rfind(" ")
    if space > limit // 2:
        cut = cut[:space]
    return cut.rstrip(" ,;:.-") + "\u2026"


def search_hit(
    hit: Hit,
    record: MemoryRecord,
    ranked: Ranked | None = None,
    confident: bool = True,
    sure: float | None = None,
    query_words: Collection[str] = (),
) -> SearchHit:
    """Return the result for a record found by its best passage ``hit`` (``query_words``
    tell which attachment a passage over several holds the answer in)."""
    text = embed_text(record)
    start, end = passage_span(text, hit.payload)
    snippet = snippet_of(text[start:end], record.title, SNIPPET_CHARS)
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
        attachment=attachment_of(text, start, end, query_words) if record.kind == "mail" else None,
    )
