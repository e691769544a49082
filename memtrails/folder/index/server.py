"""The scale-out index backend: a collection on a Qdrant server, through AsyncQdrantClient."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import Any

from qdrant_client import AsyncQdrantClient, models
from qdrant_client.local.async_qdrant_local import AsyncQdrantLocal

from ..._exceptions import IndexBackendError
from ...embedding._base import Vector
from ...portable import js_well_formed
from ..scripts import SCRIPTS
from ._base import (
    DENSE,
    PAYLOAD_INDEXES,
    WORDS,
    Hit,
    IndexPoint,
    SearchFilter,
    SparseVector,
    candidate_sides,
    idf_of,
    note_passage,
)
from .registry import SERVER

__all__ = ["ServerIndex"]

_SCHEMA = {"keyword": models.PayloadSchemaType.KEYWORD, "integer": models.PayloadSchemaType.INTEGER}


class ServerIndex:
    """Dense + keyword points in one collection of a Qdrant server or cluster.

    The schema is the Edge backend's: named dense vector ``dense`` (cosine), sparse vector
    ``words`` with the IDF modifier, keyword/integer payload indexes. Writes wait for the
    server to apply them, so :meth:`flush` has nothing left to do.

    qdrant-client's local mode (``AsyncQdrantClient(path=...)`` or ``location=":memory:"``)
    speaks the same API and is what the tests run against; it is synchronous code behind
    ``async def`` (it blocks the event loop) and brute-force, so it is a test double, not a
    backend for real folders.

    Example::

        index = await ServerIndex.open("http://qdrant:6333", collection="mail", dims=384)
        await index.upsert(points)
        by_meaning, by_words = await index.candidates(query_vector, keyword_vector, 10, SearchFilter())
        await index.aclose()
    """

    def __init__(
        self, client: AsyncQdrantClient, collection: str, dims: int, *, owns_client: bool
    ) -> None:
        """Wrap a client whose collection exists; use :meth:`open`."""
        self._client = client
        self._collection = collection
        self._dims = dims
        self._owns_client = owns_client
        self._closed = False

    @classmethod
    async def open(
        cls,
        url_or_client: str | AsyncQdrantClient,
        *,
        collection: str = "memtrails",
        dims: int,
        api_key: str | None = None,
        own_client: bool | None = None,
    ) -> ServerIndex:
        """Connect and create the collection (schema + payload indexes) if it is missing.

        Args:
            url_or_client: the server's URL (``http://host:6333``) or a client to use (not
                closed by :meth:`aclose`).
            collection: the collection's name.
            dims: length of the dense vectors; must match an existing collection's.
            api_key: the server's API key, when connecting by URL.
            own_client: whether :meth:`aclose` closes the client (default: only a client
                created here from a URL).

        Returns:
            The open index.

        Raises:
            IndexBackendError: the server cannot be reached, or the collection exists with
                another schema.

        Example::

            index = await ServerIndex.open("http://localhost:6333", dims=384)
        """
        if dims < 1:
            raise ValueError(f"`dims` must be positive, got {dims}")
        if not collection:
            raise ValueError("`collection` must not be empty")
        owns = isinstance(url_or_client, str) if own_client is None else own_client
        where = url_or_client if isinstance(url_or_client, str) else "the given client"
        try:
            client = (
                # The version check is a blocking request in a side thread that reports by
                # warning; an unreachable or incompatible server fails the first call anyway.
                AsyncQdrantClient(url=url_or_client, api_key=api_key, check_compatibility=False)
                if isinstance(url_or_client, str)
                else url_or_client
            )
        except Exception as exc:
            raise IndexBackendError(f"cannot connect to Qdrant at {where}: {exc}") from exc
        index = cls(client, collection, dims, owns_client=owns)
        try:
            async with index._errors("open"):
                await index._ensure_schema()
        except BaseException:
            await index.aclose()
            raise
        return index

    async def _ensure_schema(self) -> None:
        client, name = self._client, self._collection
        if await client.collection_exists(name):
            info = await client.get_collection(name)
            vectors = info.config.params.vectors
            dense = vectors.get(DENSE) if isinstance(vectors, dict) else None
            if dense is None or dense.size != self._dims:
                have = "no dense vector" if dense is None else f"{dense.size} dims"
                raise IndexBackendError(
                    f"Qdrant collection {name} has {have}, expected {DENSE!r} of {self._dims}; "
                    "use another collection or reindex into a new one"
                )
            present = set(info.payload_schema)
        else:
            await client.create_collection(
                name,
                vectors_config={
                    DENSE: models.VectorParams(size=self._dims, distance=models.Distance.COSINE)
                },
                sparse_vectors_config={
                    WORDS: models.SparseVectorParams(modifier=models.Modifier.IDF)
                },
            )
            present = set()
        # Local mode has no payload indexes (it warns and ignores them); a server needs them
        # for fast filters.
        if isinstance(client._client, AsyncQdrantLocal):
            return
        for field, kind in PAYLOAD_INDEXES.items():
            if field not in present:
                await client.create_payload_index(name, field, _SCHEMA[kind], wait=True)

    # ----------------------------------------------------------------- the IndexBackend protocol

    async def upsert(self, points: Sequence[IndexPoint]) -> None:
        """Insert or replace points in one request, waiting until the server applied them.

        Raises:
            IndexBackendError: the server rejected the batch or the index is closed.
        """
        if not points:
            return
        structs = [
            models.PointStruct(
                id=p.id,
                vector={
                    DENSE: p.dense.tolist(),
                    WORDS: models.SparseVector(
                        indices=list(p.sparse.indices), values=list(p.sparse.values)
                    ),
                },
                payload=dict(p.payload),
            )
            for p in points
        ]
        async with self._errors("upsert"):
            await self._client.upsert(self._collection, structs, wait=True)

    async def delete_uids(self, uids: Sequence[str]) -> None:
        """Delete every point (every passage) of these records.

        Raises:
            IndexBackendError: the server failed or the index is closed.
        """
        if not uids:
            return
        selector = models.FilterSelector(
            filter=models.Filter(
                must=[models.FieldCondition(key="uid", match=models.MatchAny(any=list(uids)))]
            )
        )
        async with self._errors("delete"):
            await self._client.delete(self._collection, selector, wait=True)

    async def flush(self) -> None:
        """Nothing to do: every write already waited for the server to apply it."""
        self._check_open()

    async def candidates(
        self, dense: Vector | None, sparse: SparseVector, limit: int, where: SearchFilter
    ) -> tuple[list[Hit], list[Hit]]:
        """Return up to ``limit`` passages by meaning and by words, each with its raw score.

        Both queries go to the server in one batch request; a side without a query
        (``dense`` None, ``sparse`` empty) is not asked and comes back empty.

        Raises:
            IndexBackendError: the server failed or the index is closed.
        """
        if limit < 1:
            return [], []
        flt = server_filter(where)
        requests = []
        if dense is not None:
            requests.append(
                models.QueryRequest(
                    query=dense.tolist(),
                    using=DENSE,
                    limit=limit,
                    filter=flt,
                    with_payload=True,
                    with_vector=[DENSE],
                )
            )
        if len(sparse.indices):
            requests.append(
                models.QueryRequest(
                    query=models.SparseVector(
                        indices=list(sparse.indices), values=list(sparse.values)
                    ),
                    using=WORDS,
                    limit=limit,
                    filter=flt,
                    with_payload=True,
                    with_vector=[DENSE],
                )
            )
        if not requests:
            return [], []
        async with self._errors("search"):
            responses = await self._client.query_batch_points(self._collection, requests)
        return candidate_sides([response.points for response in responses], dense is not None)

    async def term_idf(self, terms: Sequence[int]) -> dict[int, float]:
        """Return the IDF of each of ``terms`` some point holds: each term asked alone (one
        batch, best point only), its score over the weight that point stores for it."""
        if not terms:
            return {}
        requests = [
            models.QueryRequest(
                query=models.SparseVector(indices=[term], values=[1.0]),
                using=WORDS,
                limit=1,
                with_payload=False,
                with_vector=[WORDS],
            )
            for term in terms
        ]
        async with self._errors("search"):
            responses = await self._client.query_batch_points(self._collection, requests)
        out: dict[int, float] = {}
        for term, response in zip(terms, responses, strict=True):
            best = response.points[0] if response.points else None
            idf = idf_of(term, float(best.score), best.vector) if best else None
            if idf is not None:
                out[term] = idf
        return out

    async def count_records(self) -> int:
        """Return how many records the collection holds (points with ``passage == 0``)."""
        flt = models.Filter(
            must=[models.FieldCondition(key="passage", match=models.MatchValue(value=0))]
        )
        async with self._errors("count"):
            result = await self._client.count(self._collection, count_filter=flt, exact=True)
        return int(result.count)

    async def count_points(self) -> int:
        """Return how many points (passages) the collection holds (exact)."""
        async with self._errors("count"):
            result = await self._client.count(self._collection, exact=True)
        return int(result.count)

    async def point_uids(self) -> dict[str, set[int]]:
        """Return the passages the collection holds per record uid (scrolls every point)."""
        found: dict[str, set[int]] = {}
        offset: Any = None
        while True:
            async with self._errors("scroll"):
                points, offset = await self._client.scroll(
                    self._collection,
                    limit=1024,
                    offset=offset,
                    with_payload=["uid", "passage"],
                    with_vectors=False,
                )
            for point in points:
                note_passage(found, point.payload)
            if offset is None:
                return found

    async def points_missing(
        self, field: str, after: str | None, limit: int
    ) -> tuple[list[tuple[str, dict[str, Any]]], str | None]:
        """Return a page of the points without ``field`` (see IndexBackend.points_missing)."""
        missing = models.IsEmptyCondition(is_empty=models.PayloadField(key=field))
        async with self._errors("scroll"):
            points, offset = await self._client.scroll(
                self._collection,
                scroll_filter=models.Filter(must=[missing]),
                limit=limit,
                offset=after,
                with_payload=["uid", "start", "end"],
                with_vectors=False,
            )
        return [(str(p.id), dict(p.payload or {})) for p in points], (
            None if offset is None else str(offset)
        )

    async def set_payload(self, ids: Sequence[str], payload: dict[str, Any]) -> None:
        """Set these payload keys on these points, their others kept."""
        if ids:
            async with self._errors("set payload"):
                await self._client.set_payload(
                    self._collection, payload=payload, points=list(ids), wait=True
                )

    async def owner(self) -> str | None:
        """Return None: a collection records no owner (two folders may share a server)."""
        return None

    async def set_owner(self, folder_id: str) -> None:
        """Do nothing: see :meth:`owner`."""

    async def clear(self) -> None:
        """Delete every point of the collection, keeping its schema.

        Raises:
            IndexBackendError: the server failed or the index is closed.
        """
        # An empty filter matches every point.
        selector = models.FilterSelector(filter=models.Filter())
        async with self._errors("clear"):
            await self._client.delete(self._collection, selector, wait=True)

    async def optimize(self) -> None:
        """Nothing to do: the server builds HNSW and merges segments in the background."""
        self._check_open()

    def describe(self) -> dict[str, Any]:
        """Return ``{"kind": "qdrant-server", "collection": ...}`` (plus the URL if known)."""
        out: dict[str, Any] = {"kind": SERVER, "collection": self._collection}
        rest = getattr(self._client._client, "rest_uri", None)
        if isinstance(rest, str):
            out["url"] = rest
        return out

    async def aclose(self) -> None:
        """Close the client if this index created it. Idempotent."""
        if self._closed:
            return
        self._closed = True
        if self._owns_client:
            try:
                await self._client.close()
            except Exception as exc:
                raise IndexBackendError(f"closing Qdrant client failed: {exc}") from exc

    async def __aenter__(self) -> ServerIndex:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    # ----------------------------------------------------------------- internals

    def _check_open(self) -> None:
        if self._closed:
            raise IndexBackendError(
                f"Qdrant collection {self._collection} index was closed; open it again"
            )

    @asynccontextmanager
    async def _errors(self, what: str) -> AsyncIterator[None]:
        """Translate qdrant-client's and the transport's errors into IndexBackendError."""
        self._check_open()
        try:
            yield
        except IndexBackendError:
            raise
        except Exception as exc:  # httpx, grpc, UnexpectedResponse, local-mode errors
            raise IndexBackendError(
                f"Qdrant collection {self._collection}: {what} failed: {exc}"
            ) from exc


def server_filter(where: SearchFilter) -> models.Filter | None:
    """Translate a :class:`SearchFilter` into a qdrant-client filter (``None`` when empty)."""
    must: list[models.Condition] = []
    for key in ("kind", "author", "source"):
        value = getattr(where, key)
        if value is not None:
            value = js_well_formed(value)  # as stored (see _edge_filter)
            # An author by its words, as the Edge index matches it: every word of the value a
            # whole word of the author, in any case (Qdrant's word tokenizer on a field
            # without a text index, the server and local mode alike); kind and source exactly.
            match: models.Match = (
                models.MatchText(text=value) if key == "author" else models.MatchValue(value=value)
            )
            must.append(models.FieldCondition(key=key, match=match))
    if where.since_ms is not None or where.until_ms is not None:
        must.append(
            models.FieldCondition(
                key="at", range=models.Range(gte=where.since_ms, lte=where.until_ms)
            )
        )
    if where.uids is not None:
        must.append(models.FieldCondition(key="uid", match=models.MatchAny(any=list(where.uids))))
    if where.outside is not None:
        # As the Edge index asks it (_edge_filter.py).
        others = sorted(SCRIPTS - where.outside)
        must.append(models.FieldCondition(key="scripts", match=models.MatchAny(any=others)))
    return models.Filter(must=must) if must else None
