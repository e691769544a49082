"""Word-by-word reordering of a search's first results, from the folder's word-piece cache.

The cache (``pieces.npz`` in the folder) holds one vector per word piece the folder's model
has seen: the mean of that piece's contextual vectors over every passage embedded, as the
import's model runs gave them (``embedding/pieces.py``). Nothing is stored per passage. At
query time the first :data:`TOP` results' matched passages are tokenised again, each piece looked up in
the cache, and each result scored by MaxSim: for every word piece of the query (its own
vector, from the query's model run) the best cosine among the result's pieces, averaged. The
score's z-score over those results, times :data:`REORDER_WEIGHT` of the model, is added to
the fused score (benchmarks/README.md, issue 32: measured on the dev set).

The file is derived data: a missing, damaged or other model's cache means no reordering and
one log line, never an error; ``memtrails reindex`` builds it again.
"""

from __future__ import annotations

import logging
import os
import threading
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from ..embedding.pieces import PieceSums

if TYPE_CHECKING:
    from .hits import SearchHit

__all__ = [
    "CACHE_FILE",
    "PASSAGE_CHARS",
    "REORDER_WEIGHT",
    "TOP",
    "PieceCache",
    "maxsim",
    "reorder",
]

log = logging.getLogger(__name__)

CACHE_FILE = "pieces.npz"
# How many of the first results are reordered, and how much of each one's matched passage
# (of its text as the model sees it) is read for its pieces: as measured.
TOP = 10
PASSAGE_CHARS = 1500
# Per model, the weight of the word-by-word score's z-score (times 0.1, on the fused
# score's scale). Only models measured to gain: MiniLM's token vectors gained nothing.
REORDER_WEIGHT = {"multilingual-e5-small": 1.0}

_FloatArray = npt.NDArray[np.float32]
_IntArray = npt.NDArray[np.int64]


class PieceCache:
    """A folder's word-piece cache: read on first use, updated by imports, saved after them.

    ``model`` is the folder's model identity (its ``model_id`` and ``sha256``): a file
    written for another model is not used.
    """

    def __init__(self, folder: Path, model: str) -> None:
        self._path = folder / CACHE_FILE
        self._model = model
        self._loaded = False
        self._dirty = False
        self._row = np.full(0, -1, dtype=np.int64)  # piece id -> row, -1: never seen
        self._ids = np.zeros(0, dtype=np.int64)
        self._counts = np.zeros(0, dtype=np.int64)
        self._means = np.zeros((0, 0), dtype=np.float16)
        self._size = 0
        # An import adds on the event loop's thread while a search reads in a worker thread
        # (a service does both at once): every public method holds this.
        self._lock = threading.Lock()

    def wants(self, model_id: str) -> bool:
        """Whether an import with this model keeps its pieces (see :data:`REORDER_WEIGHT`)."""
        return model_id in REORDER_WEIGHT

    @property
    def pieces(self) -> int:
        """Word pieces held (the file is read on first use: blocking)."""
        with self._lock:
            self._load()
            return self._size

    def _load(self) -> None:
        if self._loaded:
            return
        self._loaded = True
        if not self._path.exists():
            return
        try:
            with np.load(self._path, allow_pickle=False) as data:
                if str(data["model"]) != self._model:
                    raise ValueError(f"written for {data['model']}, not {self._model}")
                ids = np.asarray(data["ids"], dtype=np.int64)
                counts = np.asarray(data["counts"], dtype=np.int64)
                means = np.asarray(data["means"], dtype=np.float16)
            if means.ndim != 2 or len(ids) != len(means) or len(counts) != len(ids):
                raise ValueError("its arrays do not match")
            if len(ids) and (ids.min() < 0 or len(np.unique(ids)) != len(ids)):
                raise ValueError("its piece ids are not unique")
        except Exception as exc:  # derived data: any damage means no reordering, said once
            log.warning(
                "word-piece cache %s not used (%s); results are not reordered word by word "
                "until `memtrails reindex` builds it again",
                self._path,
                exc,
            )
            return
        self._ids, self._counts, self._means, self._size = ids, counts, means, len(ids)
        self._row = np.full(int(ids.max()) + 1 if len(ids) else 0, -1, dtype=np.int64)
        self._row[ids] = np.arange(len(ids))

    def clear(self) -> None:
        """Forget every piece (a reindex builds the cache from the log again)."""
        with self._lock:
            self._forget()

    def _forget(self) -> None:
        self._loaded, self._dirty, self._size = True, True, 0
        self._row = np.full(0, -1, dtype=np.int64)
        self._ids = np.zeros(0, dtype=np.int64)
        self._counts = np.zeros(0, dtype=np.int64)
        self._means = np.zeros((0, 0), dtype=np.float16)

    def add(self, sums: PieceSums) -> None:
        """Fold one batch's sums into the running means."""
        with self._lock:
            self._add(sums)

    def _add(self, sums: PieceSums) -> None:
        self._load()
        if not len(sums.ids):
            return
        if self._means.shape[1] != sums.sums.shape[1]:
            if self._size:
                return  # another width: not this cache's model
            self._means = np.zeros((0, sums.sums.shape[1]), dtype=np.float16)
        top = int(sums.ids.max()) + 1
        if top > len(self._row):
            self._row = np.concatenate([self._row, np.full(top - len(self._row), -1, np.int64)])
        new = sums.ids[self._row[sums.ids] < 0]
        if len(new):
            self._grow(self._size + len(new))
            self._row[new] = np.arange(self._size, self._size + len(new))
            self._ids[self._size : self._size + len(new)] = new
            self._size += len(new)
        rows = self._row[sums.ids]
        held = self._counts[rows].astype(np.float64)
        total = held + sums.counts
        mean = (self._means[rows].astype(np.float64) * held[:, None] + sums.sums) / total[:, None]
        self._means[rows] = mean.astype(np.float16)
        self._counts[rows] = total.astype(np.int64)
        self._dirty = True

    def _grow(self, need: int) -> None:
        if need <= len(self._ids):
            return
        size = max(need, 2 * len(self._ids), 1024)
        dims = self._means.shape[1]
        self._ids = np.concatenate([self._ids, np.zeros(size - len(self._ids), np.int64)])
        self._counts = np.concatenate([self._counts, np.zeros(size - len(self._counts), np.int64)])
        more = np.zeros((size - len(self._means), dims), dtype=np.float16)
        self._means = np.concatenate([self._means, more])

    def save(self) -> None:
        """Write the cache if it changed (blocking): a temporary file renamed into place."""
        with self._lock:
            self._save()

    def _save(self) -> None:
        if not self._dirty:
            return
        n = self._size
        tmp = self._path.with_name(self._path.name + ".tmp")
        with open(tmp, "wb") as f:
            np.savez(
                f,
                model=np.array(self._model),
                ids=self._ids[:n].astype(np.int32),
                counts=np.minimum(self._counts[:n], 2**31 - 1).astype(np.int32),
                means=self._means[:n],
            )
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, self._path)
        self._dirty = False

    def vectors(self, ids: _IntArray) -> _FloatArray:
        """Return the unit vectors of the pieces among ``ids`` that the cache holds."""
        with self._lock:
            self._load()
            ids = ids[ids < len(self._row)]
            rows = self._row[ids]
            picked = self._means[rows[rows >= 0]].astype(np.float32)
        norms = np.sqrt(np.einsum("ij,ij->i", picked, picked))
        unit: _FloatArray = picked / np.maximum(norms, 1e-12)[:, None]
        return unit


def maxsim(query: _FloatArray, passage: _FloatArray) -> float:
    """Mean over the query's rows of their best cosine among the passage's rows (unit rows)."""
    if not len(query) or not len(passage):
        return 0.0
    # Not `query @ passage.T`: a BLAS call starts its threads, and beside onnxruntime's on a
    # busy machine a product this small took 20 ms instead of 0.1 (einsum: 0.2-0.4 ms).
    cosines = np.einsum("ij,kj->ik", query, passage, optimize=False)
    return float(cosines.max(axis=1).mean())


def reorder(hits: list[SearchHit], scores: list[float], weight: float) -> list[SearchHit]:
    """Return ``hits`` with ``weight x 0.1 x`` each score's z-score (over ``scores``, one per
    first hit) added to its fused score, the scored hits sorted again (ties keep order)."""
    values = np.asarray(scores, dtype=np.float64)
    if len(values) < 2 or values.std() == 0:
        return hits
    z = (values - values.mean()) / values.std()
    head = [
        replace(hit, score=hit.score + weight * 0.1 * float(zi))
        for hit, zi in zip(hits, z, strict=False)
    ]
    head.sort(key=lambda h: -h.score)
    return head + hits[len(head) :]
