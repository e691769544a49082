"""How the embedded index's shard is set up: what it stores, how it seals segments, and the
count of points not yet sealed, kept across processes."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

import qdrant_edge as qe

from ..._exceptions import IndexBackendError
from ..._heap import release_freed_heap
from ._base import DENSE, PAYLOAD_INDEXES, WORDS, IndexPoint
from .edge_kind import CONFIG_FILE, UNSEALED_FILE

__all__ = [
    "CONFIG_FILE",
    "DENSE_SEARCH",
    "EDGE_PAYLOAD_INDEXES",
    "GRAPH_M",
    "SEAL_EVERY",
    "UNSEALED_FILE",
    "close_orphan",
    "graph_m",
    "kind_of",
    "load_waiting",
    "open_error",
    "payload_index",
    "point_bytes",
    "quantized",
    "read_unsealed",
    "release_freed_heap",
    "shard_config",
    "write_unsealed",
]

# UNSEALED_FILE keeps the points in the open segment across processes: a folder fed by many
# small imports (a cron job) would otherwise never reach a seal in any one of them.
# Points written before the shard's open (appendable) segment is sealed. The open segment
# keeps its id tracker, keyword (sparse) index and payload indexes as growing in-memory
# maps, ~2.6 KiB a point; `optimize()` rewrites it as a sealed segment that reads all of
# them from memory-mapped files. Sealing 10k points costs about a second of CPU.
SEAL_EVERY = 10_000
# HNSW graph parameters `optimize()` builds with (Qdrant's defaults).
GRAPH_M, EF_CONSTRUCT, FULL_SCAN_KB, GRAPH_FROM_KB = 16, 100, 10_000, 10_000


# The payload indexes a shard gets: not `thread`, which no search filters on. `author` is
# filtered by its words (`MatchText`), which a keyword index does not serve; a text index
# with Qdrant's word tokenizer, lowercased, gives the very points the unindexed filter gives
# (26 probes of names, addresses, accents, hyphens, CJK, case: identical sets) and took a
# filtered search over 20k points from 15.9 ms to 0.25 ms (100k: 250-720 ms before).
# Each index costs at every write and seal: 7 of them took 117 us of CPU a point (written
# and sealed), none 51 us. A shard keeps those it was made with; an `author` index of
# another kind is replaced by the text one when the shard is opened.
EDGE_PAYLOAD_INDEXES = {
    k: "text" if k == "author" else v for k, v in PAYLOAD_INDEXES.items() if k != "thread"
}

# A sealed segment also keeps its dense vectors as int8 (one byte a dimension, memory-mapped
# like the vectors), and a search scans those, then scores the best twice-the-limit passages
# of each segment again from the fp32 vectors. At 100k points the scan of 150 MB of fp32
# took 9-10 ms of wall and 16-19 ms of CPU a query; the int8 one 2.2-3 ms and 4.5-6 ms, with
# the same passages in the same order and the same scores, to the last bit
# (benchmarks/README.md, "search_latency.py"). The open segment is scanned in fp32 as before.
DENSE_QUANTIZATION = qe.ScalarQuantizationConfig(
    qe.ScalarType.Int8, quantile=0.99, memory=qe.Memory.Cold
)
# What a dense query asks of it: the returned scores are always the fp32 cosines.
DENSE_SEARCH = qe.SearchParams(
    quantization=qe.QuantizationSearchParams(rescore=True, oversampling=2.0)
)


def point_bytes(point: IndexPoint) -> int:
    # Measured: ~4.3 KB on disk per 384-dim point with a short payload (write-ahead log and
    # segment each hold the vector, and a sealed segment its int8 copy); counted twice over
    # for the segment's own growth steps.
    vector = 5 * len(point.dense) + 8 * len(point.sparse.indices)
    payload = sum(len(str(v)) + len(k) + 8 for k, v in point.payload.items())
    return 4 * (vector + payload)


def shard_config(
    dims: int,
    *,
    sealing: bool = False,
    graph: bool = False,
    seal_every: int = SEAL_EVERY,
    quantize: bool = True,
) -> qe.EdgeConfig:
    """The shard's settings: what it stores, and how a new one (``sealing``) or one given an
    HNSW graph (``graph``) builds its segments; neither keeps what the shard holds.
    ``quantize``: sealed segments keep int8 copies of the dense vectors (see
    DENSE_QUANTIZATION); a shard made without them is loaded without them (see quantized)."""
    extra: dict[str, Any] = {}
    if sealing:
        # m = 0: a sealed segment gets no graph (search stays exact, as before `optimize`).
        extra["hnsw_config"] = qe.HnswIndexConfig(0, EF_CONSTRUCT, FULL_SCAN_KB)
        # Edge counts a segment's size in KiB of float32 vectors. `optimize()` rewrites an
        # open segment past half a seal's worth (so a seal always takes it), and merges
        # sealed ones up to two seals' worth: a merge's transient memory grows with what
        # it merges.
        seal_kb = seal_every * dims * 4 // 1024
        extra["optimizers"] = qe.EdgeOptimizersConfig(
            indexing_threshold=max(1, seal_kb // 2), max_segment_size=max(1, 2 * seal_kb)
        )
    elif graph:
        extra["hnsw_config"] = qe.HnswIndexConfig(GRAPH_M, EF_CONSTRUCT, FULL_SCAN_KB)
        extra["optimizers"] = qe.EdgeOptimizersConfig(indexing_threshold=GRAPH_FROM_KB)
    return qe.EdgeConfig(
        # Vectors and payloads on disk (memory-mapped): the process holds what it touches,
        # not every point, and the kernel may take those pages back.
        vectors={
            DENSE: qe.EdgeVectorParams(
                dims,
                qe.Distance.Cosine,
                on_disk=True,
                quantization_config=DENSE_QUANTIZATION if quantize else None,
            )
        },
        # IDF is applied at query time from the shard's own statistics, so stored weights
        # stay as written (words.passage_keywords: saturated counts).
        sparse_vectors={WORDS: qe.EdgeSparseVectorParams(modifier=qe.Modifier.Idf, on_disk=True)},
        on_disk_payload=True,
        **extra,
    )


def quantized(folder: Path) -> bool:
    """Tell whether the shard in ``folder`` was made with int8 copies of its dense vectors.

    A shard made before them is loaded without them: given the setting, its next seal would
    rewrite every sealed segment at once (1M points: 79 s and a peak RSS of 2.7 GB, against
    the 425 MiB of the import that built it). A folder made since has them; a reindex keeps
    the shard's settings.
    """
    try:
        return bool(_saved_config(folder)["vectors"][DENSE].get("quantization_config"))
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return False


def payload_index(
    kind: str,
) -> qe.KeywordIndexParams | qe.IntegerIndexParams | qe.TextIndexParams:
    """A payload index kept in memory-mapped files once its segment is sealed."""
    if kind == "text":
        return qe.TextIndexParams(tokenizer=qe.TokenizerType.Word, lowercase=True, on_disk=True)
    if kind == "keyword":
        return qe.KeywordIndexParams(on_disk=True)
    return qe.IntegerIndexParams(lookup=True, range=True, on_disk=True)


def read_unsealed(folder: Path) -> int:
    try:
        return int(json.loads((folder / UNSEALED_FILE).read_text(encoding="utf-8"))["points"])
    except (OSError, ValueError, KeyError, TypeError):
        return 0  # a guess only: the next seal comes up to one seal's worth later


def write_unsealed(folder: Path, points: int) -> None:
    path = folder / UNSEALED_FILE
    temporary = path.with_suffix(".tmp")
    try:
        temporary.write_text(json.dumps({"points": points}), encoding="utf-8")
        temporary.replace(path)
    except OSError:
        pass  # a count that lags only delays the next seal: never fail a flush for it


def graph_m(folder: Path) -> int | None:
    """Return the HNSW ``m`` the shard in ``folder`` builds with (None: Qdrant's default)."""
    try:
        return int(_saved_config(folder)["hnsw_config"]["m"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _saved_config(folder: Path) -> Any:
    """The settings the shard in ``folder`` keeps (``CONFIG_FILE``, as Edge writes it)."""
    return json.loads((folder / CONFIG_FILE).read_text(encoding="utf-8"))


def kind_of(info: qe.PayloadIndexInfo) -> str:
    """``keyword``, ``integer``, ``text``...: a payload index's kind, as payload_index names it."""
    return str(info.data_type).rsplit(".", 1)[-1].lower()


def open_error(folder: Path, dims: int, exc: Exception) -> IndexBackendError:
    text = str(exc)
    if "WAL" in text and "WouldBlock" in text:
        return IndexBackendError(
            f"index {folder} is already open in this or another process (Qdrant Edge locks its "
            "write-ahead log); close it there first"
        )
    if "ncompatible" in text:
        return IndexBackendError(
            f"index {folder} was built for other vectors than {dims} dims: {text}; "
            "reindex the memory folder with its own model or into a new folder"
        )
    # The index is derived from records.jsonl alone: a damaged one costs a rebuild, no data.
    return IndexBackendError(
        f"cannot open index {folder}: {text}; it is rebuilt from records.jsonl: remove that "
        "folder (rm -r it) and open the memory again"
    )


_WAL_WAIT = 10.0  # seconds a load waits for a cancelled load of the same shard to let go


def load_waiting(folder: Path, dims: int) -> qe.EdgeShard:
    """Load the shard, waiting a little while its write-ahead log is still held.

    Under the folder's lock only this process can hold it: a cancelled request's load that
    is still finishing in its worker thread, closed as soon as it ends (``close_orphan``).
    """
    deadline = time.monotonic() + _WAL_WAIT
    config = shard_config(dims, quantize=quantized(folder))
    while True:
        try:
            return qe.EdgeShard.load(str(folder), config)
        except Exception as exc:  # qdrant-edge raises plain Exception
            if "WouldBlock" not in str(exc) or time.monotonic() > deadline:
                raise
        time.sleep(0.05)


def close_orphan(opening: asyncio.Future[qe.EdgeShard]) -> None:
    """Close the shard a cancelled open loaded after all (its worker thread ran on)."""
    if not opening.cancelled() and opening.exception() is None:
        opening.result().close()
