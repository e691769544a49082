"""The one interface every embedder implements."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

__all__ = ["IDENTITY_KEYS", "MAX_WINDOWS", "Embedder", "Passage", "Vector", "same_model"]

if TYPE_CHECKING:
    Vector = npt.NDArray[np.float32]

# The most model windows one text is given: the bound on what one record costs to embed. A
# text past it (a merged month of a list, a book-length attachment) has its first
# MAX_WINDOWS windows embedded, and the last passage's span runs on to the end of the text:
# its words stay searchable by keyword (the keyword vector is taken over the span), its
# meaning past the bound is not embedded. 64 windows of the default model are about 14,000
# word pieces (some 60 KB of English, 40 pages): more than nearly every mail, note or chat
# turn holds; a 606 KB list month cost 857 windows before (benchmarks/README.md, long_record.py).
MAX_WINDOWS = 64

# Keys of describe() that identify the vectors; the rest say where the model came from.
IDENTITY_KEYS = (
    "kind",
    "model_id",
    "dims",
    "sha256",
    "tokenizer_sha256",
    "max_tokens",
    "query_prefix",
    "passage_prefix",
)


@dataclass(frozen=True, slots=True)
class Passage:
    """One window of a record's text with its normalised sentence vector.

    ``start``/``end`` are offsets in the record's text (Python str indices) so the keyword
    vector and the snippet can be taken from the same span. The passages of a text cover it
    whole: the last one of a text past ``MAX_WINDOWS`` windows ends at the text's end,
    beyond the window its vector was computed from.
    """

    start: int
    end: int
    vector: Vector


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into passages with vectors; identified by a stable model id.

    Implementations run blocking work off the event loop and are safe to call from several
    tasks of one loop. :meth:`embed` is for what is stored and :meth:`embed_query` for what
    is searched: a model trained with instructions applies its own there (e5 prepends
    ``passage: `` and ``query: ``; ``OnnxEmbedder`` takes them as ``passage_prefix`` and
    ``query_prefix``), and ``describe()`` records them, so a folder is searched as it was
    built.

    What to implement: ``model_id`` (names the vectors: a folder refuses a model of another
    id), ``dims`` (the vector length), ``describe()`` (at least ``kind``, ``model_id`` and
    ``dims``), ``embed(texts)`` (per text, its :class:`Passage` list covering the text,
    each vector of ``dims`` float32, normalised), ``embed_query(text)`` (one such vector)
    and ``aclose()``. Pass one as ``Memory.open(path, embedder=...)``; the folder does not
    close it. ``memtrails.testing.HashingEmbedder`` is a small whole one.

    Example: a toy model whose vector tells a text's length:

        >>> import asyncio, tempfile
        >>> import numpy as np
        >>> from memtrails import Memory
        >>> from memtrails.extend import Embedder, Passage
        >>> class Lengths:
        ...     model_id, dims = "lengths-2", 2
        ...     def describe(self):
        ...         return {"kind": "lengths", "model_id": self.model_id, "dims": self.dims}
        ...     async def embed(self, texts):
        ...         return [[Passage(0, len(text), await self.embed_query(text))] for text in texts]
        ...     async def embed_query(self, text):
        ...         vector = np.array([1.0, len(text)], dtype=np.float32)
        ...         return vector / np.linalg.norm(vector)
        ...     async def aclose(self):
        ...         pass
        >>> isinstance(Lengths(), Embedder)
        True
        >>> async def run(folder):
        ...     async with Memory.open(folder, embedder=Lengths()) as memory:
        ...         await memory.ingest([{"id": "1", "text": "a short note"}])
        ...         return (await memory.status()).model
        >>> with tempfile.TemporaryDirectory() as folder:
        ...     asyncio.run(run(folder))
        {'kind': 'lengths', 'model_id': 'lengths-2', 'dims': 2}
    """

    @property
    def model_id(self) -> str: ...

    @property
    def dims(self) -> int: ...

    def describe(self) -> dict[str, Any]:
        """Return what the folder's manifest records about the model (id, dims, sha256, ...)."""
        ...

    async def embed(self, texts: Sequence[str]) -> list[list[Passage]]:
        """Return, per text, one or more passages (long texts are cut into windows).

        At most ``MAX_WINDOWS`` windows of a text are embedded; the last passage of a longer
        text spans the rest of it (see :data:`MAX_WINDOWS`).
        """
        ...

    async def embed_query(self, text: str) -> Vector:
        """Return the vector of a search query (one passage, cut to the model's limit)."""
        ...

    async def aclose(self) -> None: ...


def same_model(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    """Return whether two ``describe()`` dicts give the same vectors (origins may differ)."""
    return all(a.get(k) == b.get(k) for k in IDENTITY_KEYS)


def __getattr__(name: str) -> Any:
    # numpy is 0.1 s of a command's start: a command that reads a folder's files and no
    # vectors (`memtrails status`) does not load it; the first use of Vector does.
    if name == "Vector":
        import numpy as np
        import numpy.typing as npt

        value = npt.NDArray[np.float32]
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
