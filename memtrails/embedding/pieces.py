"""Word pieces and their contextual vectors, for the word-by-word reordering of results.

The ONNX embedder's model gives, in the run that pools a text's sentence vector, one vector
per word piece (its last hidden state). These functions keep them: at import, summed per
word-piece id (what a folder's word-piece cache averages, see ``folder/reorder.py``); at
query time, one per piece of the query. Models that give no token vectors (an already pooled
output, a server, the hashing embedder) get ``None`` back and are not reordered.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np
import numpy.typing as npt

from ._base import Embedder, Passage, Vector
from ._tokens import TokenPassage, Window, run_length_batches
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
    return embedder if isinstance(embedder, OnnxEmbedder) and not embedder._pooled else None


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
    model._check_open()
    if not texts:
        return []
    windows = await asyncio.to_thread(model._windows, list(texts), first_only=False)
    lead = model._passage_ids
    extra = len(model._prefix) + len(lead) + len(model._suffix)

    def summed(batch: list[Window]) -> tuple[list[Passage], PieceSums | None]:
        runs = model._run_batch(batch, True, lead)
        return [Passage(r.start, r.end, r.vector) for r in runs], _summed(batch, runs)

    async def run(batch: list[Window]) -> list[Passage]:
        done, sums = await asyncio.to_thread(summed, batch)
        if sums is not None:
            sink(sums)
        return done

    passages = await run_length_batches(windows, extra, model._batch_size, model._batch_tokens, run)
    out: list[list[Passage]] = [[] for _ in texts]
    for window, passage in zip(windows, passages, strict=True):
        out[window.text_index].append(passage)
    return out


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
    model._check_open()

    def run() -> QueryPieces:
        [window] = model._windows([query], first_only=True)
        [out] = model._run_batch([window], True, model._query_ids)
        tokens = out.tokens if out.tokens is not None else np.zeros((0, model.dims), np.float32)
        norms = np.maximum(np.linalg.norm(tokens, axis=1, keepdims=True), 1e-12)
        return QueryPieces(out.vector, (tokens / norms).astype(np.float32))

    return await asyncio.to_thread(run)


def piece_ids(embedder: Embedder, texts: Sequence[str]) -> list[_IntArray] | None:
    """Return each text's distinct word-piece ids (blocking), or ``None`` without a tokenizer."""
    model = _tokens_of(embedder)
    if model is None:
        return None
    # One at a time: encode_batch starts the tokenizer's thread pool, which on a busy
    # machine costs more than it saves for ten short texts.
    encode = model._tokenizer.encode
    return [
        np.unique(np.asarray(encode(t, add_special_tokens=False).ids, dtype=np.int64))
        for t in texts
    ]
