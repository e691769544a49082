"""Index backends: Qdrant Edge (embedded default) and a Qdrant server (scale-out)."""

from __future__ import annotations

from ._base import Hit, IndexBackend, IndexPoint, SearchFilter, SparseVector
from .edge import EdgeIndex
from .server import ServerIndex

__all__ = [
    "EdgeIndex",
    "Hit",
    "IndexBackend",
    "IndexPoint",
    "SearchFilter",
    "ServerIndex",
    "SparseVector",
]
