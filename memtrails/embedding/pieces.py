"""Word pieces and their contextual vectors, for the word-by-word reordering of results.

The ONNX embedder's model gives, in the run that pools a text's sentence vector, one vector
per word piece (its last hidden state). These functions keep them: at import, summed per
word-piece id (what a folder's word-piece cache averages, see ``folder/reorder.py``); at
query time, one per piece of the query. Models that give no token vectors (an already pooled
output, a server, the hashing embedder) get ``None`` back and are not reordered.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np
import numpy.typing as npt

from ._base import Embedder, Passage, Vector
from ._tokens import TokenPassage, Window
from .onnx import OnnxEmbedder

__all__ = [
    "PieceSink",
    "PieceSums",
    "QueryPieces",
    "embed_with_pieces",
    "piece_ids",
    "query_pieces",
]

_FloatArray = npt.NDArray[np.float32]
_IntArray = npt.NDArray[np.int64]


@dataclass(frozen=True, slots=True)
class PieceSums:
    """A batch's contextual vectors summed per word-piece id: ``sums[i]`` over ``counts[i]``
    occurrences of piece ``ids[i]`` (ids unique, ascending)."""

    ids: _IntArray
    sums: _FloatArray
    counts: _IntArray


@dataclass(frozen=True, slots=True)
class QueryPieces:
    """A query's sentence vector and its word pieces' vectors (unit rows), from one run."""

    vector: Vector
    tokens: _FloatArray


class PieceSink(Protocol):
    """Where an import's piece sums go (a folder's word-piece cache)."""

    def wants(self, model_id: str) -> bool:
        """Whether this model's pieces are kept (only for models the reordering helps)."""
        ...

    def add(self, sums: PieceSums) -> None:
        """Take one batch's sums."""
        ...


def _tokens_of(embedder: Embedder) -> OnnxEmbedder | None:
    return embedder if isinstance(embedder, OnnxEmbedder) and embedder.token_vectors else None


async def embed_with_pieces(
    embedder: Embedder, texts: Sequence[str], sink: Callable[[PieceSums], None]
) -> list[list[Passage]]:
    """Embed ``texts`` as :meth:`Embedder.embed` does, handing ``sink`` each model run's word
    pieces summed per id (a model without token vectors just embeds).

    The token vectors of one run are summed and dropped before the next run starts, so a
    record of many windows holds no more than ``embed`` would (a run's are 1.5 KiB a piece).
    ``sink`` is called on the event loop's thread.
    """
    model = _tokens_of(embedder)
    if model is None:
        return await embedder.embed(texts)

    def take(sums: PieceSums | None) -> None:
        if sums is not None:
            sink(sums)

    return await model.embed_runs(texts, _summed, take)


def _summed(batch: list[Window], runs: list[TokenPassage]) -> PieceSums | None:
    kept = [(w.ids, r.tokens) for w, r in zip(batch, runs, strict=True) if w.ids]
    kept = [(i, t) for i, t in kept if t is not None and len(t) == len(i)]
    if not kept:
        return None
    ids = np.concatenate([np.asarray(i, dtype=np.int64) for i, _ in kept])
    vectors = np.concatenate([t for _, t in kept])
    unique, inverse, counts = np.unique(ids, return_inverse=True, return_counts=True)
    sums = np.zeros((len(unique), vectors.shape[1]), dtype=np.float32)
    np.add.at(sums, inverse, vectors)
    return PieceSums(unique, sums, counts.astype(np.int64))


async def query_pieces(embedder: Embedder, query: str) -> QueryPieces | None:
    """Return a query's vector (as :meth:`Embedder.embed_query`) and its pieces' unit vectors
    from the same run, or ``None`` for a model without token vectors."""
    model = _tokens_of(embedder)
    if model is None:
        return None
    out = await model.embed_query_tokens(query)
    tokens = out.tokens if out.tokens is not None else np.zeros((0, model.dims), np.float32)
    norms = np.maximum(np.linalg.norm(tokens, axis=1, keepdims=True), 1e-12)
    return QueryPieces(out.vector, (tokens / norms).astype(np.float32))


def piece_ids(embedder: Embedder, texts: Sequence[str]) -> list[_IntArray] | None:
    """Return each text's distinct word-piece ids (blocking), or ``None`` without a tokenizer."""
    model = _tokens_of(embedder)
    if model is None:
        return None
    # One at a time: encode_batch starts the tokenizer's thread pool, which on a busy
    # machine costs more than it saves for ten short texts.
    return [np.unique(np.asarray(model.token_ids(t), dtype=np.int64)) for t in texts]
