"""A LangChain retriever over a memory folder (or the service that holds it).

``pip install 'memtrails[langchain]'``. Each search opens the folder through
``Memory.open``, so when ``memtrails serve`` holds the folder the retriever is a thin client
of the service (no model loaded in the agent's process); otherwise it opens the folder
itself, briefly, read-only.
"""

from __future__ import annotations

import asyncio

try:
    from langchain_core.callbacks import (
        AsyncCallbackManagerForRetrieverRun,
        CallbackManagerForRetrieverRun,
    )
    from langchain_core.documents import Document
    from langchain_core.retrievers import BaseRetriever
except ImportError as exc:  # pragma: no cover - the message is the point
    raise ImportError(
        "memtrails.adapters.langchain needs LangChain: pip install 'memtrails[langchain]'"
    ) from exc

from ..folder.search import SearchHit
from ._shared import hit_metadata, search_home

__all__ = ["MemtrailsRetriever", "hit_document"]


def hit_document(hit: SearchHit) -> Document:
    """Return a search hit as a LangChain ``Document``: the best passage as its content, the
    record's fields (id, uid, title, kind, author, at, source, score, confident) as metadata."""
    return Document(page_content=hit.snippet, metadata=hit_metadata(hit), id=hit.uid)


class MemtrailsRetriever(BaseRetriever):
    """Retrieve records of a memtrails memory as ``Document``s, best first (sync and async).

    Args:
        home: the memory folder (``~`` allowed).
        k: how many records a search returns.
        kind, author, source, since, until: the filters of :meth:`memtrails.Memory.search`.
        min_confidence: return nothing when the search's confidence is below this.

    Example::

        retriever = MemtrailsRetriever(home="~/.memtrails", k=5)
        docs = retriever.invoke("who moved the release date?")
        docs = await retriever.ainvoke("who moved the release date?")
    """

    home: str
    k: int = 4
    kind: str | None = None
    author: str | None = None
    source: str | None = None
    since: str | None = None
    until: str | None = None
    min_confidence: float | None = None

    async def _search(self, query: str) -> list[Document]:
        hits = await search_home(
            self.home,
            query,
            self.k,
            kind=self.kind,
            author=self.author,
            source=self.source,
            since=self.since,
            until=self.until,
            min_confidence=self.min_confidence,
        )
        return [hit_document(hit) for hit in hits]

    def _get_relevant_documents(
        self, query: str, *, run_manager: CallbackManagerForRetrieverRun
    ) -> list[Document]:
        return asyncio.run(self._search(query))

    async def _aget_relevant_documents(
        self, query: str, *, run_manager: AsyncCallbackManagerForRetrieverRun
    ) -> list[Document]:
        return await self._search(query)
