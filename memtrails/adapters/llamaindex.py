"""A LlamaIndex retriever and reader over a memory folder (or the service that holds it).

``pip install 'memtrails[llamaindex]'``. The retriever opens the folder through
``Memory.open`` for each search, so when ``memtrails serve`` holds the folder it is a thin
client of the service (no model loaded in the agent's process); otherwise it opens the
folder itself, briefly, read-only. The reader reads every live record of a folder as a
``Document`` the same way (through the service, or from the folder).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, AsyncIterator, Iterator
from typing import Any

try:
    from llama_index.core.readers.base import BaseReader
    from llama_index.core.retrievers import BaseRetriever
    from llama_index.core.schema import Document, NodeWithScore, QueryBundle, TextNode
except ImportError as exc:  # pragma: no cover - the message is the point
    raise ImportError(
        "memtrails.adapters.llamaindex needs LlamaIndex: pip install 'memtrails[llamaindex]'"
    ) from exc

from ..folder.search import SearchHit
from ..memory import Memory
from ..records import MemoryRecord
from ._shared import hit_metadata, home_folder, record_metadata, search_home

__all__ = ["MemtrailsReader", "MemtrailsRetriever", "hit_node", "record_document"]

# Identifiers and scores are for code, not for the model or the embedding of a node.
_HIDDEN = ["id", "uid", "score", "confident", "meta"]
_BATCH = 64  # records the reader takes from its event loop per hop


def hit_node(hit: SearchHit) -> NodeWithScore:
    """Return a search hit as a ``NodeWithScore``: a ``TextNode`` whose text is the best
    passage and whose metadata holds the record's fields (id, uid, title, kind, author, at,
    source, score, confident); its id is the record's uid, its score the hit's."""
    node = TextNode(
        text=hit.snippet,
        id_=hit.uid,
        metadata=hit_metadata(hit),
        excluded_embed_metadata_keys=_HIDDEN,
        excluded_llm_metadata_keys=_HIDDEN,
    )
    return NodeWithScore(node=node, score=hit.score)


def record_document(record: MemoryRecord) -> Document:
    """Return a record as a ``Document``: its whole text, its fields (id, uid, title, kind,
    author, at, source, thread, meta) as metadata, its uid as the document's id."""
    metadata = record_metadata(record)
    return Document(
        text=record.text,
        id_=metadata["uid"],
        metadata=metadata,
        excluded_embed_metadata_keys=_HIDDEN,
        excluded_llm_metadata_keys=_HIDDEN,
    )


class MemtrailsRetriever(BaseRetriever):
    """Retrieve records of a memtrails memory as ``NodeWithScore``s, best first (sync
    ``retrieve`` and async ``aretrieve``).

    Args:
        home: the memory folder (``~`` allowed).
        k: how many records a search returns.
        kind, author, source, since, until: the filters of :meth:`memtrails.Memory.search`.
        min_confidence: return nothing when the search's confidence is below this.
        **kwargs: LlamaIndex's own (``callback_manager``, ``verbose``, ...).

    Example::

        retriever = MemtrailsRetriever(home="~/.memtrails", k=5)
        nodes = retriever.retrieve("who moved the release date?")
        nodes = await retriever.aretrieve("who moved the release date?")
    """

    def __init__(
        self,
        home: str,
        k: int = 4,
        *,
        kind: str | None = None,
        author: str | None = None,
        source: str | None = None,
        since: str | None = None,
        until: str | None = None,
        min_confidence: float | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.home = home
        self.k = k
        self.filters: dict[str, Any] = {
            "kind": kind,
            "author": author,
            "source": source,
            "since": since,
            "until": until,
            "min_confidence": min_confidence,
        }

    async def _search(self, query: str) -> list[NodeWithScore]:
        hits = await search_home(self.home, query, self.k, **self.filters)
        return [hit_node(hit) for hit in hits]

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        return asyncio.run(self._search(query_bundle.query_str))

    async def _aretrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        return await self._search(query_bundle.query_str)


class MemtrailsReader(BaseReader):
    """Read every live record of a memory folder (of one source, if given) as a
    ``Document``, oldest first.

    Args:
        home: the memory folder (``~`` allowed); it must exist.
        source: only the records of this source.

    ``load_data()`` returns a list, ``lazy_load_data()`` yields one document at a time
    (the folder stays open until the iteration ends), ``aload_data()`` and
    ``alazy_load_data()`` are their async forms. While ``memtrails serve`` holds the folder
    the records come from the service.

    Example::

        documents = MemtrailsReader(home="~/.memtrails", source="notes").load_data()
    """

    def __init__(self, home: str, *, source: str | None = None) -> None:
        self.home = home
        self.source = source

    async def _records(self) -> AsyncGenerator[Document, None]:
        async with Memory.open(home_folder(self.home), create=False, brief=True) as memory:
            async for record in memory.records(source=self.source):
                yield record_document(record)

    def lazy_load_data(self, *args: Any, **load_kwargs: Any) -> Iterator[Document]:
        """Yield the folder's records as ``Document``s, oldest first."""
        with asyncio.Runner() as runner:
            documents = self._records()
            try:
                while batch := runner.run(_take(documents, _BATCH)):
                    yield from batch
            finally:
                runner.run(documents.aclose())

    async def alazy_load_data(self, *args: Any, **load_kwargs: Any) -> list[Document]:
        """Return the folder's records as ``Document``s (async)."""
        return [document async for document in self._records()]

    async def aload_data(self, *args: Any, **load_kwargs: Any) -> list[Document]:
        """Return the folder's records as ``Document``s (async)."""
        return await self.alazy_load_data()


async def _take(documents: AsyncIterator[Document], n: int) -> list[Document]:
    batch: list[Document] = []
    async for document in documents:
        batch.append(document)
        if len(batch) == n:
            break
    return batch
