"""What reads a model's long queries: its int8 copy (``_int8_queries``), opened on first use."""

from __future__ import annotations

import logging
import threading
from pathlib import Path

import onnxruntime as ort

from .._exceptions import EmbeddingError
from ._session import choose_providers, open_graph

__all__ = ["LONG_QUERY_PIECES", "LongQueries", "may_serve"]

_log = logging.getLogger("memtrails.embedding")

# A query of more word pieces than this runs on the int8 copy. Below it the fp32 graph's run
# is short anyway, and a short question's vector is where a small drift could swap two
# close results: with every query on the int8 copy the dev set's cross-language questions
# lost 2 of 28 first places; with those past 32 pieces on it, no question moved but one
# long quoted snippet that came first (benchmarks/README.md, issue 32, eleventh pass).
LONG_QUERY_PIECES = 32


def may_serve(device: str | None) -> bool:
    """Whether a model loaded for ``device`` may run on the CPU, where the copy stands in: on
    a GPU every query runs on the model's own graph, and the copy is not built.

    Raises:
        EmbeddingError: as :func:`choose_providers` (an unknown device, or ``"cuda"`` where
            onnxruntime lists none).
    """
    providers, _ = choose_providers(device, ort.get_available_providers())
    return providers[0] == "CPUExecutionProvider"


class LongQueries:
    """The int8 graph's session for a loaded model's long queries, opened on first use (a
    process that only imports never holds it): ~105 MiB, ~0.2 s with the file's SHA-256."""

    def __init__(self, path: Path, sha256: str, threads: int | None) -> None:
        self._path, self._sha256, self._threads = path, sha256, threads
        self._session: ort.InferenceSession | None = None
        self._off = False
        self._lock = threading.Lock()

    @staticmethod
    def serves(session: ort.InferenceSession) -> bool:
        """Whether the model's own session runs where this copy may stand in (the CPU)."""
        return bool(session.get_providers()[0] == "CPUExecutionProvider")

    def reading(self, pieces: int) -> ort.InferenceSession | None:
        """Return the session that reads a query of ``pieces`` word pieces: this copy's past
        ``LONG_QUERY_PIECES`` (opened on first use, blocking), else None (the model's own
        graph; also where this copy cannot be had)."""
        if pieces <= LONG_QUERY_PIECES:
            return None
        with self._lock:
            if self._session is None and not self._off:
                try:
                    self._session = open_graph(self._path, self._sha256, self._threads)
                except EmbeddingError as exc:
                    self._off = True
                    _log.warning("memtrails: long queries run on the fp32 graph: %s", exc)
                    # A damaged copy is built again on the model's next load.
                    self._path.unlink(missing_ok=True)
            return self._session

    def close(self) -> None:
        with self._lock:
            self._session, self._off = None, True
