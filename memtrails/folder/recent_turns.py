"""The chat turns' context kept between imports: each conversation's last own vectors.

The embed stage stores a short chat turn's vector with the turns before it in its
conversation (``pipeline/turn_context.py``). Those are the turns an import met; a chat
imported a turn at a time (cron, ``watch``, a service's appends) would give each run's
first turn its own vector alone, and a different one than an import at once or a reindex
gives. So the folder keeps what the imports met, ``turns.npz``: for each of the last
conversations seen, its last turns' own vectors, and the log's length and tail digest then.

It is derived data, like the word-piece cache: a missing, damaged or other model's file,
or one written for a log that is no longer the folder's, means the next import starts
without the turns before (one log line), never an error; ``memtrails reindex`` builds it
again. A crash before it is written loses the context of that import's turns, never a
record.
"""

from __future__ import annotations

import json
import logging
import os
import threading
from collections import OrderedDict, deque
from collections.abc import Hashable
from pathlib import Path
from typing import Any

import numpy as np

from .log import RecordLog

__all__ = ["TURNS_FILE", "RecentTurns"]

log = logging.getLogger(__name__)

TURNS_FILE = "turns.npz"

Recent = OrderedDict[Hashable, deque[np.ndarray]]


class RecentTurns:
    """A folder's ``turns.npz``: read at the first import, written after imports that met turns.

    ``model`` is the folder's model identity (its ``model_id`` and ``sha256``): a file
    written for another model is not used.
    """

    def __init__(self, folder: Path, model: str) -> None:
        self._path = folder / TURNS_FILE
        self._model = model
        self._recent: Recent = OrderedDict()
        self._loaded = False
        self._dirty = False
        # The log's length and tail digest when the state was last brought up to date: the
        # state stands for that log, and for any log that starts with it (appends only).
        self._offset = 0
        self._tail = ""
        self._lock = threading.Lock()

    def for_import(self, records: RecordLog) -> Recent:
        """Return the state an import adds to (blocking: may read the file), empty when it
        stands for another log than ``records``'s."""
        with self._lock:
            if not self._loaded:
                self._loaded = True
                self._load()
            if self._recent and not self._stands_for(records):
                log.info(
                    "%s was written for another records.jsonl: chat turns imported next do "
                    "not hold the turns before them from earlier imports",
                    self._path,
                )
                self._recent = OrderedDict()
            return self._recent

    def fresh(self) -> Recent:
        """Forget every conversation and return the empty state (a reindex from the start)."""
        with self._lock:
            self._loaded = True
            self._recent = OrderedDict()
            self._offset, self._tail = 0, ""
            self._dirty = True
            return self._recent

    def caught_up(self, records: RecordLog) -> None:
        """Say the state now stands for ``records`` as it is (after a stream that met turns)."""
        with self._lock:
            self._offset = records.size
            self._tail = records.tail(records.size)
            self._dirty = True

    def save(self) -> None:
        """Write the file if it changed (blocking): a temporary file renamed into place."""
        with self._lock:
            if not self._dirty:
                return
            keys: list[Any] = []
            counts: list[int] = []
            vectors: list[np.ndarray] = []
            for key, recent in self._recent.items():
                keys.append(list(key) if isinstance(key, tuple) else key)
                counts.append(len(recent))
                vectors.extend(recent)
            dims = vectors[0].shape[0] if vectors else 0
            tmp = self._path.with_name(self._path.name + ".tmp")
            with open(tmp, "wb") as f:
                np.savez(
                    f,
                    model=np.array(self._model),
                    offset=np.array(self._offset, dtype=np.int64),
                    tail=np.array(self._tail),
                    keys=np.array(json.dumps(keys, ensure_ascii=False)),
                    counts=np.array(counts, dtype=np.int32),
                    vectors=np.array(vectors, dtype=np.float32).reshape(len(vectors), dims),
                )
            # No fsync: a service writes this after every append it imports, and a file a
            # crash left torn is only a damaged one (said, not used), never a lost record.
            os.replace(tmp, self._path)
            self._dirty = False

    def _stands_for(self, records: RecordLog) -> bool:
        return self._offset <= records.size and records.tail(self._offset) == self._tail

    def _load(self) -> None:
        if not self._path.exists():
            return
        try:
            with np.load(self._path, allow_pickle=False) as data:
                if str(data["model"]) != self._model:
                    raise ValueError(f"written for {data['model']}, not {self._model}")
                offset, tail = int(data["offset"]), str(data["tail"])
                keys = json.loads(str(data["keys"]))
                counts = np.asarray(data["counts"], dtype=np.int64)
                vectors = np.asarray(data["vectors"], dtype=np.float32)
            if not isinstance(keys, list) or len(keys) != len(counts):
                raise ValueError("its keys and counts do not match")
            if vectors.ndim != 2 or int(counts.sum()) != len(vectors) or (counts < 1).any():
                raise ValueError("its vectors and counts do not match")
        except Exception as exc:  # derived data: any damage means no context, said once
            log.warning(
                "%s not used (%s): chat turns imported next do not hold the turns before "
                "them from earlier imports until `memtrails reindex` builds it again",
                self._path,
                exc,
            )
            return
        recent: Recent = OrderedDict()
        at = 0
        for key, count in zip(keys, counts.tolist(), strict=True):
            recent[_key(key)] = deque(vectors[at : at + count])
            at += count
        self._recent, self._offset, self._tail = recent, offset, tail


def _key(value: Any) -> Hashable:
    """A conversation's key as :func:`memtrails.items.conversation_key` gives it, from JSON."""
    if isinstance(value, list):
        return tuple(_key(v) for v in value)
    if isinstance(value, dict):
        return json.dumps(value, sort_keys=True)
    return value  # type: ignore[no-any-return]
